"""Retrieval stage: routes A-D, evidence policy; owns the Qdrant index."""
