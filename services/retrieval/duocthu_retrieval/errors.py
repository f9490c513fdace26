"""Every failure the retrieval stage names: one module, so a reader sees the whole vocabulary at once.

A store or embedder failure (:class:`IndexUnavailable`,
:class:`RetrievalUnavailable`) must never look like "the book says nothing":
the turn abstains with ``retrieval_unavailable``.  A release that can never
go live (:class:`ReleaseRejected`) is recorded and announced as failed.
"""

from __future__ import annotations


class RetrievalUnavailable(RuntimeError):
    """The index or the query embedder failed; the turn abstains with ``retrieval_unavailable``."""


class IndexUnavailable(Exception):
    """The vector store cannot be reached or refused an operation (the adapter's translation of its errors)."""


class IndexConflict(Exception):
    """A collection exists with a different vector configuration than the release needs."""


class NotRoutable(ValueError):
    """The frame names nothing retrieval can look up (no drug and no condition)."""


class ReleaseRejected(Exception):
    """The release's batches are malformed or contradict each other: it can never go live."""


class RebuildFailed(Exception):
    """A rebuild could not start (no release to rebuild, or no corpus stream to read it from)."""


class RerankUnavailable(Exception):
    """The optional reranker failed or answered nonsense: the original order is kept."""


class OperationFailed(Exception):
    """An operator action on the index could not be carried out; the message says why."""
