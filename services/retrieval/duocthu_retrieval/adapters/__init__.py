"""Adapters of the retrieval stage: all its I/O (the vector store, the CORPUS stream, requests to a replica)."""
