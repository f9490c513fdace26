"""The OpenAI-compatible provider against a real HTTP server (pytest-httpserver)."""

from __future__ import annotations

import json
import time

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from duocthu_providers.errors import MalformedResponse, ProviderUnavailable
from duocthu_providers.llm.factory import make_chat_provider
from duocthu_providers.llm.openai_compat import OpenAICompatibleProvider
from duocthu_providers.llm.port import ChatMessage, ChatRequest
from duocthu_providers.llm.settings import JudgeChatSettings

REQUEST = ChatRequest(system="Chỉ dùng bằng chứng.", messages=(ChatMessage("user", "Câu hỏi?"),), timeout_s=2.0)


def _completion(text: str) -> dict[str, object]:
    return {"id": "x", "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7}}


def _provider(server: HTTPServer, **kw: object) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(base_url=server.url_for("/v1"), model="m", **kw)  # type: ignore[arg-type]


async def test_good_json_completion_and_request_shape(httpserver: HTTPServer) -> None:
    seen: list[dict[str, object]] = []

    def handler(request: Request) -> Response:
        seen.append(json.loads(request.data))
        assert request.headers["Authorization"] == "Bearer k"
        return Response(json.dumps(_completion('{"claims": []}')), content_type="application/json")

    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(handler)
    response = await _provider(httpserver, api_key="k").complete(REQUEST)
    assert response.text == '{"claims": []}'
    assert (response.input_tokens, response.output_tokens) == (11, 7)
    body = seen[0]
    assert body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"] == [{"role": "system", "content": "Chỉ dùng bằng chứng."},
                                {"role": "user", "content": "Câu hỏi?"}]


async def test_prose_is_returned_as_text_for_the_caller_to_reject(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/v1/chat/completions").respond_with_json(_completion("Tôi nghĩ là có."))
    response = await _provider(httpserver).complete(REQUEST)
    assert response.text == "Tôi nghĩ là có."


@pytest.mark.parametrize("body", ['{"choices": [', '{"choices": []}', '{"choices": [{"message": {}}]}', "<html>"])
async def test_truncated_or_foreign_body_is_malformed(httpserver: HTTPServer, body: str) -> None:
    httpserver.expect_request("/v1/chat/completions").respond_with_data(body, content_type="application/json")
    with pytest.raises(MalformedResponse):
        await _provider(httpserver).complete(REQUEST)


async def test_server_error_is_retried_then_unavailable(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/v1/chat/completions").respond_with_data("boom", status=500)
    with pytest.raises(ProviderUnavailable, match="500"):
        await _provider(httpserver, max_attempts=2).complete(REQUEST)
    assert len(httpserver.log) == 2


async def test_one_transient_failure_then_success(httpserver: HTTPServer) -> None:
    httpserver.expect_ordered_request("/v1/chat/completions").respond_with_data("busy", status=503)
    httpserver.expect_ordered_request("/v1/chat/completions").respond_with_json(_completion("{}"))
    response = await _provider(httpserver, max_attempts=2).complete(REQUEST)
    assert response.text == "{}"


async def test_client_error_is_not_retried(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/v1/chat/completions").respond_with_data("bad model", status=404)
    with pytest.raises(ProviderUnavailable, match="404"):
        await _provider(httpserver, max_attempts=3).complete(REQUEST)
    assert len(httpserver.log) == 1


async def test_timeout_is_unavailable(httpserver: HTTPServer) -> None:
    def slow(request: Request) -> Response:
        time.sleep(1.5)
        return Response(json.dumps(_completion("{}")), content_type="application/json")

    httpserver.expect_request("/v1/chat/completions").respond_with_handler(slow)
    quick = ChatRequest(system="s", messages=(ChatMessage("user", "q"),), timeout_s=0.3)
    with pytest.raises(ProviderUnavailable):
        await _provider(httpserver, max_attempts=1).complete(quick)


def _stalling(httpserver: HTTPServer) -> None:
    def stall(request: Request) -> Response:
        time.sleep(1.5)
        return Response(json.dumps(_completion("{}")), content_type="application/json")

    httpserver.expect_request("/v1/chat/completions").respond_with_handler(stall)


async def test_configured_read_timeout_and_attempts_bound_a_stalling_server(
        httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """JUDGE_READ_TIMEOUT_S / JUDGE_MAX_ATTEMPTS reach the provider: two short attempts, not the turn's 10 s."""
    _stalling(httpserver)
    monkeypatch.setenv("JUDGE_PROVIDER", "openai")
    monkeypatch.setenv("JUDGE_OPENAI_BASE_URL", httpserver.url_for("/v1"))
    monkeypatch.setenv("JUDGE_READ_TIMEOUT_S", "0.2")
    monkeypatch.setenv("JUDGE_MAX_ATTEMPTS", "2")
    provider = make_chat_provider("judge")
    assert provider is not None
    long_turn = ChatRequest(system="s", messages=(ChatMessage("user", "q"),), timeout_s=10.0)
    with pytest.raises(ProviderUnavailable, match=r"after 2 attempt\(s\): ReadTimeout"):
        await provider.complete(long_turn)


async def test_attempts_stay_inside_the_turns_remaining_time(httpserver: HTTPServer) -> None:
    """With 0.4 s left and a 5 s read timeout, one attempt of 0.4 s is all there is time for."""
    _stalling(httpserver)
    provider = _provider(httpserver, read_timeout_s=5.0, max_attempts=3)
    short_turn = ChatRequest(system="s", messages=(ChatMessage("user", "q"),), timeout_s=0.4)
    with pytest.raises(ProviderUnavailable, match=r"after 1 attempt\(s\): ReadTimeout"):
        await provider.complete(short_turn)


async def test_refused_connection_is_unavailable() -> None:
    provider = OpenAICompatibleProvider(base_url="http://127.0.0.1:9/v1", model="m", max_attempts=1)
    with pytest.raises(ProviderUnavailable):
        await provider.complete(REQUEST)


def test_factory_reads_the_role_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_PROVIDER", "openai")
    monkeypatch.setenv("JUDGE_OPENAI_MODEL", "judge-model")
    provider = make_chat_provider("judge")
    assert provider is not None and (provider.name, provider.model) == ("openai", "judge-model")
    monkeypatch.setenv("JUDGE_PROVIDER", "none")
    assert make_chat_provider("judge") is None
    assert make_chat_provider("judge", JudgeChatSettings(provider="none")) is None
