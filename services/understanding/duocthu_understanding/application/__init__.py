"""Use cases of the understanding stage."""
