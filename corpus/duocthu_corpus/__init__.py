"""Illustrative sample formulary: source monographs, typesetter, synthetic generator."""
