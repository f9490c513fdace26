"""Every failure a provider reports, typed so callers can say *why* a model could not be used.

"The model could not be consulted" (``provider_unavailable``, a retry later)
is never confused with "the model answered, unusably" (``malformed_output``)
or with "this input cannot be embedded" (a failed ingest job).
"""

from __future__ import annotations


class LLMError(Exception):
    """Base class: the chat model could not be consulted."""


class ProviderUnavailable(LLMError):
    """Network error, timeout, throttling, 5xx, missing credentials."""


class MalformedResponse(LLMError):
    """The provider answered, but not with a usable completion (counted as ``malformed_output``)."""


class BudgetExhausted(LLMError):
    """The turn has no wall-clock time or LLM calls left."""


class EmbeddingError(Exception):
    """The embedding provider failed or the input cannot be embedded as is."""


class InputTooLong(EmbeddingError):
    """An input exceeds the model window and was not windowed explicitly: never truncate silently."""


class EmbeddingUnavailable(EmbeddingError):
    """The provider could not be reached (network, throttling, 5xx, credentials): retry later.

    Kept apart from :class:`EmbeddingError` so that a caller can tell "the
    embedder is down" (retrieval abstains with ``retrieval_unavailable``, an
    ingest batch is redelivered) from "this input is bad" (fail the job).
    """
