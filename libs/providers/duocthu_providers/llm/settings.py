"""Chat-model configuration per role, read from the environment.

Two roles consult a model: ``answer`` (generation, ``ANSWER_*``) and
``judge`` (the verifier's entailment judge, ``JUDGE_*``).  Each role has its
own provider settings so that the judge can be a different model from the
writer — or absent, in which case the verifier abstains with
``judge_unavailable`` instead of passing an unchecked claim.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

Role = Literal["answer", "judge"]
ProviderName = Literal["extractive", "none", "bedrock", "openai"]


class ChatSettings(BaseSettings):
    """The provider of one role; construct with :func:`chat_settings`."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False)

    provider: ProviderName = Field(
        default="none", description="extractive/none (no model), bedrock (Converse) or openai (compatible server)"
    )
    bedrock_model_id: str = Field(default="anthropic.claude-3-5-sonnet-20240620-v1:0")
    bedrock_region: str | None = Field(default=None, description="default: the AWS chain's region")
    openai_base_url: str = Field(default="http://127.0.0.1:8000/v1", description="…/v1 of the server")
    openai_model: str = Field(default="qwen2.5-7b-instruct")
    openai_api_key: str | None = Field(default=None, description="sent as a Bearer token when set")
    openai_json_mode: bool = Field(default=True, description="request response_format=json_object")
    connect_timeout_s: float = Field(default=5.0, gt=0)
    read_timeout_s: float = Field(default=20.0, gt=0)
    max_attempts: int = Field(default=2, ge=1)
    max_tokens: int = Field(default=4096, ge=1)


class AnswerChatSettings(ChatSettings):
    model_config = SettingsConfigDict(env_prefix="ANSWER_", extra="ignore", case_sensitive=False)

    provider: ProviderName = Field(default="extractive")


class JudgeChatSettings(ChatSettings):
    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore", case_sensitive=False)


def chat_settings(role: Role) -> ChatSettings:
    """The settings of ``role`` from the environment (``ANSWER_PROVIDER``, ``JUDGE_PROVIDER`` …)."""
    return AnswerChatSettings() if role == "answer" else JudgeChatSettings()
