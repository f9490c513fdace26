"""Choosing the chat provider of a role from the environment."""

from __future__ import annotations

from typing import Any

from duocthu_providers.llm.bedrock import BedrockConverseProvider, make_converse_client
from duocthu_providers.llm.openai_compat import OpenAICompatibleProvider
from duocthu_providers.llm.port import ChatProvider
from duocthu_providers.llm.settings import ChatSettings, Role, chat_settings


def make_chat_provider(role: Role, settings: ChatSettings | None = None, *,
                       bedrock_client: Any = None) -> ChatProvider | None:
    """The configured provider, or ``None`` when the role runs without a model.

    ``None`` is a real configuration, not a failure: generation then runs
    extractively, and the verifier treats every non-verbatim claim as
    ``judge_unavailable``.
    """
    config = settings or chat_settings(role)
    if config.provider == "bedrock":
        client = bedrock_client or make_converse_client(
            config.bedrock_region, config.connect_timeout_s, config.read_timeout_s, config.max_attempts)
        return BedrockConverseProvider(client, model_id=config.bedrock_model_id)
    if config.provider == "openai":
        return OpenAICompatibleProvider(
            base_url=config.openai_base_url, model=config.openai_model, api_key=config.openai_api_key,
            json_mode=config.openai_json_mode, connect_timeout_s=config.connect_timeout_s,
            read_timeout_s=config.read_timeout_s, max_attempts=config.max_attempts)
    return None
