"""Adapters of the understanding stage: the live catalog from the corpus stream, the model drug picker."""
