"""Chat models on AWS Bedrock through the Converse API.

Temperature 0, bounded tokens, connect 5 s / read 20 s and two SDK attempts
by default (seed 000).  Credentials come only from the standard AWS chain.
boto3 is synchronous, so a call runs in a worker thread and the event loop
keeps serving other turns.
"""

from __future__ import annotations

import asyncio
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from duocthu_providers.errors import MalformedResponse, ProviderUnavailable
from duocthu_providers.llm.port import ChatRequest, ChatResponse

PROVIDER = "bedrock"


class BedrockConverseProvider:
    def __init__(self, client: Any, *, model_id: str) -> None:
        self._client = client
        self._model_id = model_id

    @property
    def name(self) -> str:
        return PROVIDER

    @property
    def model(self) -> str:
        return self._model_id

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        return {
            "modelId": self._model_id,
            "system": [{"text": request.system}],
            "messages": [{"role": m.role, "content": [{"text": m.content}]} for m in request.messages],
            "inferenceConfig": {"maxTokens": request.max_tokens, "temperature": request.temperature},
        }

    async def complete(self, request: ChatRequest) -> ChatResponse:
        params = self.request_params(request)
        try:
            response = await asyncio.wait_for(asyncio.to_thread(self._client.converse, **params),
                                              timeout=request.timeout_s)
        except TimeoutError as exc:
            raise ProviderUnavailable(f"Bedrock Converse did not answer within {request.timeout_s:.1f} s") from exc
        except (ClientError, BotoCoreError, OSError) as exc:
            raise self._translate(exc) from exc
        return self._parse(response)

    def _parse(self, response: Any) -> ChatResponse:
        try:
            blocks = response["output"]["message"]["content"]
            text = "".join(block["text"] for block in blocks if "text" in block)
        except (KeyError, TypeError) as exc:
            raise MalformedResponse(f"not a Converse response: {str(response)[:200]}") from exc
        usage = response.get("usage") or {}
        return ChatResponse(text=text, provider=PROVIDER, model=self._model_id,
                            input_tokens=usage.get("inputTokens"), output_tokens=usage.get("outputTokens"))

    def _translate(self, exc: Exception) -> Exception:
        if isinstance(exc, ClientError):
            error = exc.response.get("Error", {})
            return ProviderUnavailable(f"Bedrock {error.get('Code', 'ClientError')}: {error.get('Message', '')}")
        if isinstance(exc, BotoCoreError):
            return ProviderUnavailable(f"Bedrock unreachable: {exc}")
        return ProviderUnavailable(f"Bedrock call failed: {type(exc).__name__}: {exc}")


def make_converse_client(region: str | None, connect_timeout_s: float, read_timeout_s: float,
                         max_attempts: int) -> Any:
    """A ``bedrock-runtime`` client from the standard AWS credential chain."""
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=connect_timeout_s, read_timeout=read_timeout_s,
                    retries={"mode": "standard", "total_max_attempts": max_attempts})
    return boto3.client("bedrock-runtime", region_name=region, config=config)
