"""Cohere Embed v4 on Bedrock, at the SDK boundary: botocore's Stubber checks every request
against the real ``bedrock-runtime`` service model; the body is captured and checked too."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import botocore.session
import pytest
from botocore.config import Config
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from duocthu_providers.embedding.bedrock_cohere import BedrockCohereEmbedder
from duocthu_providers.embedding.factory import make_embedder
from duocthu_providers.embedding.settings import EmbeddingSettings
from duocthu_providers.errors import EmbeddingError, EmbeddingUnavailable, InputTooLong

MODEL = "cohere.embed-v4:0"


class Captured:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []


@pytest.fixture
def client() -> Iterator[tuple[Any, Stubber, Captured]]:
    session = botocore.session.get_session()
    client = session.create_client(
        "bedrock-runtime", region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test",
        config=Config(retries={"max_attempts": 1}),
    )
    captured = Captured()

    def capture(params: dict[str, Any], **_: Any) -> None:
        captured.bodies.append(json.loads(params["body"]))

    client.meta.events.register("provide-client-params.bedrock-runtime.InvokeModel", capture)
    with Stubber(client) as stubber:
        yield client, stubber, captured
        stubber.assert_no_pending_responses()


def _response(vectors: list[list[float]]) -> dict[str, Any]:
    body = json.dumps({"id": "x", "embeddings": {"float": vectors}, "response_type": "embeddings_by_type"}).encode()
    return {"body": StreamingBody(io.BytesIO(body), len(body)), "contentType": "application/json"}


def _expected() -> dict[str, Any]:
    return {"modelId": MODEL, "body": ANY, "contentType": "application/json", "accept": "application/json"}


def _vec(seed: float, dims: int = 1024) -> list[float]:
    return [seed] * dims


def test_documents_go_in_batches_of_96_with_the_document_input_type(client: tuple[Any, Stubber, Captured]) -> None:
    bedrock, stubber, captured = client
    texts = [f"đoạn {i}" for i in range(200)]
    for size in (96, 96, 8):
        stubber.add_response("invoke_model", _response([_vec(0.1)] * size), _expected())
    vectors = BedrockCohereEmbedder(bedrock).embed_documents(texts)
    assert len(vectors) == 200 and len(vectors[0]) == 1024
    assert [len(b["texts"]) for b in captured.bodies] == [96, 96, 8]
    assert captured.bodies[0]["texts"][0] == "đoạn 0" and captured.bodies[2]["texts"][-1] == "đoạn 199"
    for body in captured.bodies:
        assert body["input_type"] == "search_document"
        assert body["embedding_types"] == ["float"]
        assert body["truncate"] == "NONE"
        assert body["output_dimension"] == 1024


def test_queries_use_the_query_input_type(client: tuple[Any, Stubber, Captured]) -> None:
    bedrock, stubber, captured = client
    stubber.add_response("invoke_model", _response([_vec(0.2)]), _expected())
    vector = BedrockCohereEmbedder(bedrock).embed_query("liều metformin cho người suy thận")
    assert vector == _vec(0.2)
    assert captured.bodies == [{"texts": ["liều metformin cho người suy thận"], "input_type": "search_query",
                                "embedding_types": ["float"], "output_dimension": 1024, "truncate": "NONE"}]


def test_identity_is_the_bedrock_vector_space() -> None:
    ident = BedrockCohereEmbedder(object(), dimensions=1024).identity
    assert (ident.provider, ident.model_id, ident.dimensions, ident.input_kind) == (
        "bedrock", MODEL, 1024, "search_document")


def test_too_long_is_input_too_long_not_a_silent_cut(client: tuple[Any, Stubber, Captured]) -> None:
    bedrock, stubber, _ = client
    stubber.add_client_error("invoke_model", "ValidationException",
                             "Input is too long for the model: 140000 tokens exceeds the limit", 400, _expected())
    with pytest.raises(InputTooLong, match="too long"):
        BedrockCohereEmbedder(bedrock).embed_documents(["x"])


@pytest.mark.parametrize("code", ["ThrottlingException", "ServiceUnavailableException", "ModelTimeoutException"])
def test_transient_errors_are_unavailable(client: tuple[Any, Stubber, Captured], code: str) -> None:
    bedrock, stubber, _ = client
    stubber.add_client_error("invoke_model", code, "try later", 429, _expected())
    with pytest.raises(EmbeddingUnavailable, match=code):
        BedrockCohereEmbedder(bedrock).embed_query("x")


def test_other_validation_errors_are_embedding_errors(client: tuple[Any, Stubber, Captured]) -> None:
    bedrock, stubber, _ = client
    stubber.add_client_error("invoke_model", "ValidationException", "malformed input", 400, _expected())
    with pytest.raises(EmbeddingError, match="malformed input") as info:
        BedrockCohereEmbedder(bedrock).embed_query("x")
    assert not isinstance(info.value, EmbeddingUnavailable | InputTooLong)


def test_a_response_with_the_wrong_shape_is_refused(client: tuple[Any, Stubber, Captured]) -> None:
    bedrock, stubber, _ = client
    stubber.add_response("invoke_model", _response([_vec(0.1)]), _expected())
    with pytest.raises(EmbeddingError, match="1 float embeddings for 2 texts"):
        BedrockCohereEmbedder(bedrock).embed_documents(["a", "b"])
    stubber.add_response("invoke_model", _response([_vec(0.1, 512)]), _expected())
    with pytest.raises(EmbeddingError, match="does not have 1024 dimensions"):
        BedrockCohereEmbedder(bedrock).embed_query("a")


def test_batch_size_over_the_model_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="1–96 texts"):
        BedrockCohereEmbedder(object(), batch_size=97)


def test_factory_selects_bedrock_and_caches_documents(client: tuple[Any, Stubber, Captured], tmp_path: Any) -> None:
    bedrock, stubber, captured = client
    settings = EmbeddingSettings(embedding_provider="bedrock", var_dir=tmp_path)
    stubber.add_response("invoke_model", _response([_vec(0.3), _vec(0.4)]), _expected())
    embedder = make_embedder(settings, bedrock_client=bedrock)
    assert embedder.identity.provider == "bedrock"
    first = embedder.embed_documents(["a", "b"])
    again = make_embedder(settings, bedrock_client=bedrock).embed_documents(["b", "a"])  # all from the cache
    assert again == [first[1], first[0]]
    assert len(captured.bodies) == 1
    assert (tmp_path / "embedding-cache").is_dir()


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "bedrock")
    monkeypatch.setenv("EMBEDDING_BEDROCK_DIMENSIONS", "512")
    monkeypatch.setenv("EMBEDDING_CACHE", "false")
    settings = EmbeddingSettings()
    assert (settings.embedding_provider, settings.embedding_bedrock_dimensions, settings.embedding_cache) == (
        "bedrock", 512, False)
    monkeypatch.setenv("EMBEDDING_BEDROCK_DIMENSIONS", "768")
    with pytest.raises(ValueError, match="not 768"):
        EmbeddingSettings()
