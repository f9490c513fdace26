"""The same pipeline in one process without the bus: the stage handlers called in sequence.

Used only to measure what the bus costs: the same handlers, the same index
and the same embedder as the services, with messages handed from one
handler to the next in memory.
"""

from __future__ import annotations

from typing import Any

from duocthu_contracts.corpus import DrugCatalog
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerRejected,
    EvidenceRetrieved,
    TurnCompleted,
    TurnRequested,
    TurnRequestedPayload,
    TurnUnderstood,
)
from duocthu_generation import build_handler as generation_handler
from duocthu_retrieval import Retriever, turn_handler
from duocthu_runtime import StageContext, new_turn, utcnow
from duocthu_understanding import handler_for
from duocthu_verifier import build_handler as verifier_handler


class InProcessPipeline:
    def __init__(self, catalog: DrugCatalog, retriever: Retriever) -> None:
        self.understanding = handler_for(catalog)
        self.retrieval = turn_handler(lambda: retriever)
        self.generation = generation_handler()  # extractive, as the services run by default
        self.verifier = verifier_handler()  # no judge: the extractive writer's claims are verbatim

    async def ask(self, query: str, trail: list[Message] | None = None) -> TurnCompleted:
        """The turn's completion; ``trail`` (when given) receives every message of the turn, in order."""
        message: Any = new_turn(TurnRequested, TurnRequestedPayload(query=query), origin="bench", deadline_s=40,
                                llm_calls=8)
        for _ in range(8):
            if trail is not None:
                trail.append(message)
            if isinstance(message, TurnCompleted):
                return message
            if isinstance(message, TurnRequested):
                handler: Any = self.understanding
                stage = "understanding"
            elif isinstance(message, TurnUnderstood):
                handler, stage = self.retrieval, "retrieval"
            elif isinstance(message, EvidenceRetrieved):
                handler, stage = self.generation.on_evidence, "generation"
            elif isinstance(message, AnswerRejected):
                handler, stage = self.generation.on_rejected, "generation"
            elif isinstance(message, AnswerDrafted):
                handler, stage = self.verifier, "verifier"
            else:
                raise TypeError(f"unexpected message {type(message).__name__}")
            [message] = await handler(message, StageContext(stage, message, utcnow()))
        raise RuntimeError("the turn did not complete within 8 hops")
