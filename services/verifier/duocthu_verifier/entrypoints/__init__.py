"""Entry points of the verifier stage: its bus handler."""
