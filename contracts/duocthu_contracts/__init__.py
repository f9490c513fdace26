"""Message contracts of duocthu: pydantic models, JSON Schema, AsyncAPI. No logic."""
