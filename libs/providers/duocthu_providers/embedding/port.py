"""The embedder port: document and query sides of one vector space.

A vector space is identified by :class:`duocthu_contracts.corpus.EmbeddingModel`;
the index records it in its manifest and a query embedder that does not
match refuses to serve (seed 003 §10–§11).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from duocthu_contracts.corpus import EmbeddingModel


class Embedder(Protocol):
    @property
    def identity(self) -> EmbeddingModel: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages (the document side of an asymmetric model)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed a search query (the query side)."""
        ...
