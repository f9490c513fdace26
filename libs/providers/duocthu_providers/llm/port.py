"""The port every chat-model provider implements, and the per-turn budget.

Stages depend on this port only; which provider runs (Bedrock Converse, an
OpenAI-compatible server, or a scripted provider in tests) is configuration.
Its errors live in :mod:`duocthu_providers.errors`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from duocthu_providers.errors import BudgetExhausted


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class ChatRequest:
    system: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int = 4096
    temperature: float = 0.0
    json_mode: bool = True
    timeout_s: float = 20.0


@dataclass(frozen=True)
class ChatResponse:
    text: str
    provider: str
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None


class ChatProvider(Protocol):
    """A configured chat model."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Return the model's text; raise :class:`ProviderUnavailable` on any transport failure."""
        ...


@dataclass
class TurnBudget:
    """What a turn may still spend: wall clock until ``deadline`` and ``calls_left`` model calls.

    Carried in the envelope (``deadline``, ``llm_calls_remaining``) between
    stages; a stage builds one from the incoming message and reports
    ``calls_used`` when it derives its output.
    """

    deadline: datetime
    calls_left: int
    calls_used: int = field(default=0)

    def take_call(self, now: datetime) -> float:
        """Reserve one call; returns the seconds left for it, or raises :class:`BudgetExhausted`."""
        remaining = (self.deadline - now).total_seconds()
        if self.calls_left <= 0:
            raise BudgetExhausted("no LLM calls left in this turn")
        if remaining <= 0.5:
            raise BudgetExhausted("the turn's deadline has passed")
        self.calls_left -= 1
        self.calls_used += 1
        return remaining
