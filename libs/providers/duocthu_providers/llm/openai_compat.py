"""Any OpenAI-compatible ``/v1/chat/completions`` server (vLLM, Ollama, llama.cpp server).

Transport failures — refused connection, timeout, 429, 5xx — are
:class:`ProviderUnavailable`; a 2xx body that is not a chat completion is
:class:`MalformedResponse`, so that callers can tell "no model" from "the
model said something unusable".  JSON output is *requested* with
``response_format`` when configured; the caller still parses strictly,
because not every server honours it.

Time: each attempt waits at most the configured connect and read timeouts
(``*_CONNECT_TIMEOUT_S``, ``*_READ_TIMEOUT_S``), and all attempts together
at most ``request.timeout_s`` — what the turn has left — so a model that
stalls costs one read timeout per attempt and never holds the turn to its
deadline.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from duocthu_providers.errors import MalformedResponse, ProviderUnavailable
from duocthu_providers.llm.port import ChatRequest, ChatResponse

PROVIDER = "openai"


class OpenAICompatibleProvider:
    """Chat provider over httpx; one client per provider, reused across calls."""

    def __init__(self, *, base_url: str, model: str, api_key: str | None = None, json_mode: bool = True,
                 connect_timeout_s: float = 5.0, read_timeout_s: float = 20.0, max_attempts: int = 2,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._json_mode = json_mode
        self._connect_timeout_s = connect_timeout_s
        self._read_timeout_s = read_timeout_s
        self._max_attempts = max_attempts
        self._client = httpx.AsyncClient(headers=headers, transport=transport)

    @property
    def name(self) -> str:
        return PROVIDER

    @property
    def model(self) -> str:
        return self._model

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        messages: list[dict[str, str]] = [{"role": "system", "content": request.system}]
        messages += [{"role": m.role, "content": m.content} for m in request.messages]
        body: dict[str, Any] = {
            "model": self._model, "messages": messages, "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.json_mode and self._json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    async def complete(self, request: ChatRequest) -> ChatResponse:
        deadline = time.monotonic() + request.timeout_s
        last: Exception | None = None
        attempts = 0
        for _ in range(self._max_attempts):
            left = deadline - time.monotonic()
            if left <= 0.05:
                last = last or TimeoutError("no time left in the turn")
                break
            attempts += 1
            timeout = httpx.Timeout(min(self._read_timeout_s, left), connect=min(self._connect_timeout_s, left))
            try:
                response = await self._client.post(self._url, json=self.request_body(request), timeout=timeout)
            except httpx.HTTPError as exc:
                last = exc
                continue
            if response.status_code == 429 or response.status_code >= 500:
                last = ProviderUnavailable(f"{self._url} answered HTTP {response.status_code}")
                continue
            if response.status_code >= 400:
                raise ProviderUnavailable(
                    f"{self._url} rejected the request: HTTP {response.status_code} {response.text[:200]}")
            return self._parse(response)
        raise ProviderUnavailable(f"OpenAI-compatible server unavailable after {attempts} attempt(s): "
                                  f"{type(last).__name__}: {last}")

    def _parse(self, response: httpx.Response) -> ChatResponse:
        try:
            payload = response.json()
            choice = payload["choices"][0]
            text = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise MalformedResponse(f"not a chat completion: {response.text[:200]!r}") from exc
        if not isinstance(text, str):
            raise MalformedResponse("the completion has no text content")
        usage = payload.get("usage") or {}
        return ChatResponse(text=text, provider=PROVIDER, model=str(payload.get("model") or self._model),
                            input_tokens=usage.get("prompt_tokens"), output_tokens=usage.get("completion_tokens"))

    async def aclose(self) -> None:
        await self._client.aclose()
