"""Adapters of the ingest worker: all its I/O (PyMuPDF, job inputs and sidecars, the tokenizer, a running stack)."""
