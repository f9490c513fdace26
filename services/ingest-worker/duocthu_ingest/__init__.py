"""Ingest worker: PDF to provenance-preserving chunks with fail-closed gates."""
