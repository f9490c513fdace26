"""Use cases of the verifier stage."""
