"""The model-backed writer (Bedrock Converse or an OpenAI-compatible server) behind the chat-provider port.

One identical retry when the model says the evidence is insufficient without
asking anything (seed 000); every failure is typed so the turn abstains with
the right reason, and a failing model never degrades into a source dump.
Implements :class:`duocthu_generation.ports.Writer`.
"""

from __future__ import annotations

from duocthu_contracts.answer import Draft
from duocthu_generation.domain.parsing import parse_draft
from duocthu_generation.domain.prompts import system_prompt, user_message
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_providers import ChatMessage, ChatProvider, ChatRequest, TurnBudget
from duocthu_runtime import utcnow


class ModelWriter:
    def __init__(self, provider: ChatProvider, *, max_tokens: int = 4096) -> None:
        self.provider = provider
        self.max_tokens = max_tokens

    async def write(self, request: WriterInput, budget: TurnBudget) -> Draft:
        """A parsed draft; raises ``LLMError`` subclasses or ``MalformedDraft``."""
        chat = ChatRequest(system=system_prompt(request.plan, request.candidate_drug_ids),
                           messages=(ChatMessage("user", user_message(request.question, request.evidence,
                                                                      request.must_cover)),),
                           max_tokens=self.max_tokens)
        draft = await self._once(chat, budget)
        if not draft.evidence_sufficient and not draft.clarifying_question:
            draft = await self._once(chat, budget)
        return draft

    async def _once(self, request: ChatRequest, budget: TurnBudget) -> Draft:
        remaining = budget.take_call(utcnow())
        timed = ChatRequest(system=request.system, messages=request.messages, max_tokens=request.max_tokens,
                            timeout_s=min(20.0, max(1.0, remaining - 0.5)))
        response = await self.provider.complete(timed)
        return parse_draft(response.text, provider=self.provider.name, model=self.provider.model)
