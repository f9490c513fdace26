"""Embedding providers, the content-addressed cache, and the Vietnamese sparse encoder."""
