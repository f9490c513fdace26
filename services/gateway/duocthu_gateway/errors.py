"""Every failure the gateway names: each becomes an error body with its reason and a trace id, never masked."""

from __future__ import annotations


class StoreUnavailable(RuntimeError):
    """The history/feedback store cannot be read or written (503 with the reason; turns are still answered)."""


class CropError(ValueError):
    """The requested region is not on the source PDF (page out of range, empty or inverted box)."""


class RetrievalUnavailable(RuntimeError):
    """No retrieval replica answered a monograph request (503)."""


class TurnNotPublished(RuntimeError):
    """The turn could not be handed to the bus (the turn abstains with ``internal_error``)."""
