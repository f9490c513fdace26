"""Production embedder: Cohere Embed v4 on AWS Bedrock (``cohere.embed-v4:0``).

Request (seed 003 §10): ``input_type`` is ``search_document`` for passages and
``search_query`` for queries (the model is asymmetric), ``embedding_types``
``["float"]``, ``output_dimension`` 1024 and ``truncate`` ``NONE`` so that an
over-long input is an error, never a silent cut.  At most 96 texts per call.
Credentials come only from the standard AWS chain (environment, profile,
instance role); nothing here reads a key.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Literal

from botocore.exceptions import BotoCoreError, ClientError

from duocthu_contracts.corpus import EmbeddingModel
from duocthu_providers.embedding import metrics
from duocthu_providers.embedding.settings import BEDROCK_MAX_BATCH
from duocthu_providers.errors import EmbeddingError, EmbeddingUnavailable, InputTooLong

PROVIDER = "bedrock"
InputType = Literal["search_document", "search_query"]

#: Error codes that mean "try again later", not "this input is wrong".
_TRANSIENT = {
    "ThrottlingException", "ModelTimeoutException", "InternalServerException", "ServiceUnavailableException",
    "ServiceQuotaExceededException", "ModelNotReadyException", "AccessDeniedException",
    "UnrecognizedClientException", "ExpiredTokenException",
}
_TOO_LONG_HINTS = ("too long", "too many tokens", "exceeds", "maximum context", "token limit")


class BedrockCohereEmbedder:
    """Embedder port over ``bedrock-runtime`` ``InvokeModel`` with a Cohere Embed v4 body."""

    def __init__(self, client: Any, *, model_id: str = "cohere.embed-v4:0", dimensions: int = 1024,
                 batch_size: int = BEDROCK_MAX_BATCH) -> None:
        if not 1 <= batch_size <= BEDROCK_MAX_BATCH:
            raise ValueError(f"Cohere Embed v4 accepts 1–{BEDROCK_MAX_BATCH} texts per request, not {batch_size}")
        self._client = client
        self.batch_size = batch_size
        self._identity = EmbeddingModel(
            provider=PROVIDER, model_id=model_id, dimensions=dimensions, input_kind="search_document",
            distance="Cosine",
        )

    @property
    def identity(self) -> EmbeddingModel:
        return self._identity

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        items = list(texts)
        out: list[list[float]] = []
        for start in range(0, len(items), self.batch_size):
            out.extend(self._invoke(items[start:start + self.batch_size], "search_document"))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._invoke([text], "search_query")[0]

    def request_body(self, texts: Sequence[str], input_type: InputType) -> dict[str, Any]:
        return {
            "texts": list(texts),
            "input_type": input_type,
            "embedding_types": ["float"],
            "output_dimension": self._identity.dimensions,
            "truncate": "NONE",
        }

    def _invoke(self, texts: list[str], input_type: InputType) -> list[list[float]]:
        if not texts:
            return []
        for i, text in enumerate(texts):
            if not text.strip():
                raise EmbeddingError(f"input {i} is empty: nothing to embed")
        side = "query" if input_type == "search_query" else "passage"
        body = json.dumps(self.request_body(texts, input_type), ensure_ascii=False).encode("utf-8")
        started = time.perf_counter()
        try:
            response = self._client.invoke_model(
                modelId=self._identity.model_id, body=body, contentType="application/json",
                accept="application/json",
            )
            payload = json.loads(response["body"].read())
        except (ClientError, BotoCoreError, OSError, ValueError, KeyError, TypeError) as exc:
            raise self._translate(exc) from exc
        finally:
            metrics.PROVIDER_LATENCY.labels(PROVIDER, side).observe(time.perf_counter() - started)
        vectors = self._parse(payload, len(texts))
        metrics.EMBEDDED_TEXTS.labels(PROVIDER, side).inc(len(texts))
        return vectors

    def _parse(self, payload: Any, expected: int) -> list[list[float]]:
        embeddings = payload.get("embeddings") if isinstance(payload, dict) else None
        floats = embeddings.get("float") if isinstance(embeddings, dict) else embeddings
        if not isinstance(floats, list) or len(floats) != expected:
            got = len(floats) if isinstance(floats, list) else type(floats).__name__
            metrics.PROVIDER_ERRORS.labels(PROVIDER, "malformed_response").inc()
            raise EmbeddingError(f"Bedrock returned {got} float embeddings for {expected} texts")
        dims = self._identity.dimensions
        for i, vector in enumerate(floats):
            if not isinstance(vector, list) or len(vector) != dims:
                metrics.PROVIDER_ERRORS.labels(PROVIDER, "malformed_response").inc()
                raise EmbeddingError(f"Bedrock embedding {i} does not have {dims} dimensions")
        return [[float(v) for v in vector] for vector in floats]

    def _translate(self, exc: Exception) -> EmbeddingError:
        if isinstance(exc, ClientError):
            code = str(exc.response.get("Error", {}).get("Code", "ClientError"))
            message = str(exc.response.get("Error", {}).get("Message", ""))
            if code == "ValidationException" and any(h in message.lower() for h in _TOO_LONG_HINTS):
                metrics.PROVIDER_ERRORS.labels(PROVIDER, "input_too_long").inc()
                return InputTooLong(f"{self._identity.model_id} rejected an input as too long (truncate=NONE): "
                                    f"{message}")
            if code in _TRANSIENT:
                metrics.PROVIDER_ERRORS.labels(PROVIDER, "unavailable").inc()
                return EmbeddingUnavailable(f"Bedrock {code}: {message}")
            metrics.PROVIDER_ERRORS.labels(PROVIDER, "rejected").inc()
            return EmbeddingError(f"Bedrock {code}: {message}")
        if isinstance(exc, BotoCoreError):
            metrics.PROVIDER_ERRORS.labels(PROVIDER, "unavailable").inc()
            return EmbeddingUnavailable(f"Bedrock unreachable: {exc}")
        if isinstance(exc, ValueError):  # undecodable JSON body
            metrics.PROVIDER_ERRORS.labels(PROVIDER, "malformed_response").inc()
            return EmbeddingError(f"Bedrock returned an unreadable body: {exc}")
        metrics.PROVIDER_ERRORS.labels(PROVIDER, "unavailable").inc()
        return EmbeddingUnavailable(f"Bedrock call failed: {type(exc).__name__}: {exc}")


def make_bedrock_client(region: str | None, timeout_s: float, max_attempts: int) -> Any:
    """A ``bedrock-runtime`` client from the standard AWS credential chain."""
    import boto3
    from botocore.config import Config

    config = Config(read_timeout=timeout_s, connect_timeout=min(timeout_s, 10.0),
                    retries={"mode": "standard", "max_attempts": max_attempts})
    return boto3.client("bedrock-runtime", region_name=region, config=config)
