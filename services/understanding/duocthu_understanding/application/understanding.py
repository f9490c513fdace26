"""The understanding use case: a question (and the conversation so far) to a frame or the turn's end.

The frame is built deterministically from the live release's catalog.  Only
when that finds no drug and no condition (and no unknown name) may the
optional model step pick drugs from the catalog shortlist; its choice goes
to the frame builder as drug ids, and the frame is then built the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from duocthu_contracts.decisions import Reason
from duocthu_contracts.frame import TurnType
from duocthu_contracts.messages import TurnRequestedPayload
from duocthu_providers import TurnBudget
from duocthu_understanding.domain.frame_builder import Conversation, Outcome, understand
from duocthu_understanding.ports import CatalogSource, DrugPicker

#: Deterministic outcomes the optional model may revisit: no drug and no condition was found.
AMBIGUOUS = frozenset({Reason.DRUG_REQUIRED, Reason.OUT_OF_SCOPE})


@dataclass(frozen=True)
class Understood:
    outcome: Outcome
    llm_calls_used: int = 0


class Understanding:
    def __init__(self, catalogs: CatalogSource, picker: DrugPicker | None = None) -> None:
        self.catalogs = catalogs
        self.picker = picker

    async def understand(self, request: TurnRequestedPayload, budget: TurnBudget) -> Understood | None:
        """The outcome for ``request``; ``None`` while no corpus release is live."""
        live = self.catalogs.current()
        if live is None:
            return None
        catalog, matcher = live
        conversation = Conversation(request.history, request.last_frame, request.clarify_streak)
        outcome = understand(request.query, catalog, matcher, conversation)
        if self.picker is None or outcome.reason not in AMBIGUOUS or outcome.frame.unknown_drugs \
                or outcome.frame.turn_type is TurnType.SMALLTALK:
            return Understood(outcome)
        picked = await self.picker.pick(request.query, catalog, budget)
        if picked:
            retry = understand(request.query, catalog, matcher, conversation, chosen=picked)
            if retry.frame.drugs:
                outcome = replace(retry, frame=retry.frame.model_copy(update={"understood_by": "llm"}))
        return Understood(outcome, budget.calls_used)
