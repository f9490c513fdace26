"""Adapters at the edge of the stage."""
