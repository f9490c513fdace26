"""The Bedrock Converse provider with botocore's Stubber: the request is validated against the real service model."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from duocthu_providers.errors import ProviderUnavailable
from duocthu_providers.llm.bedrock import BedrockConverseProvider
from duocthu_providers.llm.factory import make_chat_provider
from duocthu_providers.llm.port import ChatMessage, ChatRequest
from duocthu_providers.llm.settings import AnswerChatSettings

MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"
REQUEST = ChatRequest(system="Quy tắc.", messages=(ChatMessage("user", "Liều paracetamol?"),), timeout_s=5.0)


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test")


async def test_converse_request_shape_and_text(client: Any) -> None:
    provider = BedrockConverseProvider(client, model_id=MODEL)
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            {"output": {"message": {"role": "assistant", "content": [{"text": '{"claims": '}, {"text": "[]}"}]}},
             "stopReason": "end_turn", "usage": {"inputTokens": 5, "outputTokens": 3, "totalTokens": 8},
             "metrics": {"latencyMs": 10}},
            expected_params={
                "modelId": MODEL, "system": [{"text": "Quy tắc."}],
                "messages": [{"role": "user", "content": [{"text": "Liều paracetamol?"}]}],
                "inferenceConfig": {"maxTokens": 4096, "temperature": 0.0},
            },
        )
        response = await provider.complete(REQUEST)
    assert response.text == '{"claims": []}'
    assert (response.provider, response.input_tokens, response.output_tokens) == ("bedrock", 5, 3)


@pytest.mark.parametrize("code", ["ThrottlingException", "AccessDeniedException", "ValidationException"])
async def test_service_errors_are_unavailable(client: Any, code: str) -> None:
    provider = BedrockConverseProvider(client, model_id=MODEL)
    with Stubber(client) as stub:
        stub.add_client_error("converse", service_error_code=code, service_message="nope", http_status_code=400)
        with pytest.raises(ProviderUnavailable, match=code):
            await provider.complete(REQUEST)


def test_factory_builds_bedrock_with_the_configured_model(client: Any) -> None:
    settings = AnswerChatSettings(provider="bedrock", bedrock_model_id="amazon.nova-pro-v1:0")
    provider = make_chat_provider("answer", settings, bedrock_client=client)
    assert provider is not None and provider.model == "amazon.nova-pro-v1:0"
    assert make_chat_provider("answer", AnswerChatSettings()) is None  # extractive: no model
