"""Entry points of the generation stage: its bus handlers."""
