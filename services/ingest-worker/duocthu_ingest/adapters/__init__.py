"""Adapters at the edge of ingestion (PyMuPDF, embedders, bus)."""
