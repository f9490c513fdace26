"""Shared runtime glue of duocthu services."""
