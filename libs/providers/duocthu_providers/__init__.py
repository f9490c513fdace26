"""Model providers behind ports: chat models for the writer, the judge and the understanding step; embeddings.

Stages depend on the ports (:class:`ChatProvider`, :class:`Embedder`); which
provider runs is configuration read from the environment by the factories.
"""

from duocthu_providers.embedding.factory import make_embedder, make_query_embedder, make_sparse_encoder, space_identity
from duocthu_providers.embedding.inputs import document_input, embed_chunks
from duocthu_providers.embedding.port import Embedder
from duocthu_providers.embedding.settings import EmbeddingSettings
from duocthu_providers.errors import (
    BudgetExhausted,
    EmbeddingError,
    EmbeddingUnavailable,
    InputTooLong,
    LLMError,
    MalformedResponse,
    ProviderUnavailable,
)
from duocthu_providers.llm.factory import make_chat_provider
from duocthu_providers.llm.port import ChatMessage, ChatProvider, ChatRequest, ChatResponse, TurnBudget
from duocthu_providers.llm.settings import ChatSettings, chat_settings

__all__ = [
    "BudgetExhausted",
    "ChatMessage",
    "ChatProvider",
    "ChatRequest",
    "ChatResponse",
    "ChatSettings",
    "Embedder",
    "EmbeddingError",
    "EmbeddingSettings",
    "EmbeddingUnavailable",
    "InputTooLong",
    "LLMError",
    "MalformedResponse",
    "ProviderUnavailable",
    "TurnBudget",
    "chat_settings",
    "document_input",
    "embed_chunks",
    "make_chat_provider",
    "make_embedder",
    "make_query_embedder",
    "make_sparse_encoder",
    "space_identity",
]
