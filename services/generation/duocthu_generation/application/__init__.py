"""Use cases of the generation stage."""
