"""The understanding stage's handler: a question in, a frame for retrieval or the turn's end out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.frame import TurnType
from duocthu_contracts.messages import TurnRequested, TurnUnderstood, TurnUnderstoodPayload
from duocthu_providers.llm.port import TurnBudget
from duocthu_runtime.bus.stage import StageContext
from duocthu_understanding import metrics
from duocthu_understanding.adapters.catalog import LiveCatalog
from duocthu_understanding.adapters.llm_understanding import LlmDrugPicker, names_of
from duocthu_understanding.domain.frame_builder import Conversation, understand

#: Deterministic outcomes the optional model may revisit: no drug and no condition was found.
_AMBIGUOUS = frozenset({Reason.DRUG_REQUIRED, Reason.OUT_OF_SCOPE})


class UnderstandingHandler:
    def __init__(self, catalog: LiveCatalog, picker: LlmDrugPicker | None = None) -> None:
        self.catalog = catalog
        self.picker = picker

    async def __call__(self, message: TurnRequested, ctx: StageContext[TurnRequested]) -> Sequence[Message]:
        payload = message.payload
        if self.catalog.catalog is None or self.catalog.matcher is None:
            metrics.FRAMES.labels("none", Reason.CORPUS_NOT_READY).inc()
            return [ctx.complete(Decision.ABSTAIN, Reason.CORPUS_NOT_READY, detail="no live corpus release")]
        conversation = Conversation(payload.history, payload.last_frame, payload.clarify_streak)
        outcome = understand(payload.query, self.catalog.catalog, self.catalog.matcher, conversation)
        calls = 0
        if self.picker is not None and outcome.reason in _AMBIGUOUS and not outcome.frame.unknown_drugs \
                and outcome.frame.turn_type is not TurnType.SMALLTALK:
            budget = TurnBudget(deadline=message.deadline, calls_left=message.llm_calls_remaining)
            picked = await self.picker.pick(payload.query, self.catalog.catalog, budget)
            calls = budget.calls_used
            if picked:  # re-read the question with the chosen names, so the frame is built the same way
                named = " ".join(names_of(self.catalog.catalog, picked))
                retry = understand(f"{named}: {payload.query}", self.catalog.catalog, self.catalog.matcher,
                                   conversation)
                if retry.frame.drugs:
                    outcome = replace(retry, frame=retry.frame.model_copy(update={
                        "understood_by": "llm", "standalone_query": payload.query}))
        frame = outcome.frame
        if outcome.ends_turn:
            assert outcome.decision is not None and outcome.reason is not None
            metrics.FRAMES.labels(frame.turn_type, outcome.reason).inc()
            return [ctx.complete(outcome.decision, outcome.reason, llm_calls_used=calls, frame=frame,
                                 answer=_message(outcome.reason,
                                 outcome.message), quick_replies=outcome.quick_replies,
                                 resolved_drug_ids=[d.drug_id for d in frame.drugs], detail=outcome.message)]
        metrics.FRAMES.labels(frame.turn_type, "understood").inc()
        return [ctx.derive(TurnUnderstood, TurnUnderstoodPayload(
            query=payload.query, conversation_id=payload.conversation_id, response_mode=payload.response_mode,
            frame=frame), llm_calls_used=calls)]


def _message(reason: Reason, message: str) -> str:
    """Only clarifying questions are shown as the answer text; abstentions are explained by the gateway."""
    return message if reason in (Reason.PATIENT_INFO_REQUIRED, Reason.DRUG_REQUIRED) else ""
