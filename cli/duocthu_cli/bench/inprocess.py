"""The same pipeline in one process without the bus: the stage handlers called in sequence.

Used only to measure what the bus costs: the same handlers, the same index
and the same embedder as the services, with messages handed from one
handler to the next in memory.  Which stage a message goes to next is the
topology table's (``duocthu_contracts.topology``: the identity reading it
through a durable consumer); a message no stage reads (a turn's end) ends it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from duocthu_contracts import topology as t
from duocthu_contracts.corpus import DrugCatalog
from duocthu_contracts.envelope import Message, TurnMessage
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerRejected,
    EvidenceRetrieved,
    TurnCompleted,
    TurnRequested,
    TurnRequestedPayload,
    TurnUnderstood,
)
from duocthu_contracts.topology import Reading
from duocthu_generation import build_handler as generation_handler
from duocthu_retrieval import Retriever, turn_handler
from duocthu_runtime import StageContext, flow_of, new_turn, readers_of, utcnow
from duocthu_understanding import handler_for
from duocthu_verifier import build_handler as verifier_handler

Handler = Callable[[Any, StageContext[Any]], Awaitable[Sequence[Message]]]


class InProcessPipeline:
    def __init__(self, catalog: DrugCatalog, retriever: Retriever) -> None:
        generation = generation_handler()  # extractive, as the services run by default
        #: each turn stage's handlers, by the message it reads
        self.handlers: dict[str, dict[type[Message], Handler]] = {
            t.UNDERSTANDING: {TurnRequested: handler_for(catalog)},
            t.RETRIEVAL: {TurnUnderstood: turn_handler(lambda: retriever)},
            t.GENERATION: {EvidenceRetrieved: generation.on_evidence, AnswerRejected: generation.on_rejected},
            t.VERIFIER: {AnswerDrafted: verifier_handler()},  # no judge: the extractive writer's claims are verbatim
        }
        for stage in t.TURN_STAGES:  # every turn message the table has a stage read is handled here
            for flow, _ in readers_of(stage, Reading.DURABLE):
                if issubclass(flow.message, TurnMessage) and flow.message not in self.handlers[stage]:
                    raise LookupError(f"no in-process handler for {stage} reading {flow.message.__name__}")

    @staticmethod
    def reader_of(message: type[Message]) -> str | None:
        """The stage that reads ``message`` next, or None for a turn's end (read by the gateway alone)."""
        return next((r.identity for r in flow_of(message).readers if r.reading is Reading.DURABLE), None)

    async def ask(self, query: str, trail: list[Message] | None = None) -> TurnCompleted:
        """The turn's completion; ``trail`` (when given) receives every message of the turn, in order."""
        message: Any = new_turn(TurnRequested, TurnRequestedPayload(query=query), origin="bench", deadline_s=40,
                                llm_calls=8)
        for _ in range(8):
            if trail is not None:
                trail.append(message)
            stage = self.reader_of(type(message))
            if stage is None:
                if not isinstance(message, TurnCompleted):
                    raise TypeError(f"unexpected message {type(message).__name__}")
                return message
            [message] = await self.handlers[stage][type(message)](message, StageContext(stage, message, utcnow()))
        raise RuntimeError("the turn did not complete within 8 hops")
