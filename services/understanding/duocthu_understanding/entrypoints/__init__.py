"""Entry points of the understanding stage: its bus handler."""
