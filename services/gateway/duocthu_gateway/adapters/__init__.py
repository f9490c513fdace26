"""Adapters at the gateway edge: bus correlation, store."""
