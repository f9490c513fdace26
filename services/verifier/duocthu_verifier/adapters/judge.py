"""Consulting the entailment judge through the chat-provider port (one pass, no vote).

A temperature-0 model asked the same thing twice is a correlated retry, not an
independent vote, so the judge runs exactly once per draft (seed 000).
Implements :class:`duocthu_verifier.ports.EntailmentJudge`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from duocthu_contracts.answer import CheckRecord, Claim
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Evidence
from duocthu_providers.errors import BudgetExhausted, LLMError, MalformedResponse
from duocthu_providers.llm.port import ChatMessage, ChatProvider, ChatRequest, TurnBudget
from duocthu_runtime import utcnow
from duocthu_verifier.domain.judge_prompt import (
    SYSTEM,
    JudgeResult,
    build_user_message,
    parse_judge_output,
)
from duocthu_verifier.domain.verdict import judge_not_run
from duocthu_verifier.errors import JudgeOutputError


class Judge:
    def __init__(self, provider: ChatProvider) -> None:
        self.provider = provider

    @property
    def name(self) -> str:
        return f"{self.provider.name}/{self.provider.model}"

    async def judge(
        self, question: str, claims: Sequence[Claim], evidence: Sequence[Evidence], budget: TurnBudget
    ) -> tuple[JudgeResult | None, CheckRecord | None, str]:
        """The judge's result, or the record of why it could not be consulted; plus the raw output's sha256."""
        try:
            remaining = budget.take_call(utcnow())
        except BudgetExhausted as exc:
            return None, judge_not_run(Reason.REQUEST_BUDGET_EXHAUSTED, str(exc)), ""
        request = ChatRequest(
            system=SYSTEM,
            messages=(ChatMessage("user", build_user_message(question, claims, evidence)),),
            timeout_s=remaining - 0.5,  # all of the turn's time; the provider caps each attempt by its timeouts
        )
        try:
            response = await self.provider.complete(request)
        except BudgetExhausted as exc:
            return None, judge_not_run(Reason.REQUEST_BUDGET_EXHAUSTED, str(exc)), ""
        except MalformedResponse as exc:
            return None, judge_not_run(Reason.MALFORMED_OUTPUT, str(exc)[:300]), ""
        except LLMError as exc:
            return None, judge_not_run(Reason.PROVIDER_UNAVAILABLE, f"{type(exc).__name__}: {exc}"[:300]), ""
        raw_sha = hashlib.sha256(response.text.encode("utf-8")).hexdigest()
        try:
            return parse_judge_output(response.text, len(claims)), None, raw_sha
        except JudgeOutputError as exc:
            return None, judge_not_run(Reason.MALFORMED_OUTPUT, str(exc)[:300]), raw_sha
