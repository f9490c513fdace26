"""One question, one turn: the conversation's state out with ``turn.requested``, the verified result back.

The gateway holds the HTTP request until the completion for its turn arrives
or the deadline passes; then it answers ``abstain`` rather than anything
unverified, with the reason that is true: ``bus_unavailable`` when the bus is
down, ``stage_unavailable`` (naming the stage) when a stage has no live
replica — both checked before the turn is sent, so the user is told at once
instead of after the whole deadline — and ``request_budget_exhausted`` only
when everything was up and the turn still ran out of time.  A turn end the
gate refuses (``admission.py``: not sealed by the verifier, or a seal that
does not hold) is never shown: the turn abstains with the gate's reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from duocthu_contracts.decisions import Reason
from duocthu_contracts.http import RagQueryRequest, RagQueryResponse
from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnRequestedPayload
from duocthu_gateway import metrics
from duocthu_gateway.application.admission import Admission
from duocthu_gateway.application.conversations import Conversations
from duocthu_gateway.domain.reasons import stage_unavailable_message
from duocthu_gateway.domain.responses import abstain, render
from duocthu_gateway.domain.timing import TurnTimings, hop_phases
from duocthu_gateway.errors import TurnNotPublished
from duocthu_gateway.ports import Availability, Blocker, TurnExchange
from duocthu_runtime import current_traceparent, get_logger, new_turn, span, trace_id_hex, utcnow

log = get_logger(__name__)


class Asking:
    def __init__(self, turns: TurnExchange, conversations: Conversations, *, admission: Admission, origin: str,
                 deadline_s: float, llm_calls: int, availability: Availability | None = None) -> None:
        self.turns = turns
        self.admission = admission
        self.availability = availability
        self.conversations = conversations
        self.origin = origin
        self.deadline_s = deadline_s
        self.llm_calls = llm_calls

    async def ask(self, body: RagQueryRequest, correlation_id: str,
                  on_turn: Callable[[TurnRequested], None] | None = None,
                  client_key: str | None = None, timings: TurnTimings | None = None, *,
                  asked_again: bool = False) -> RagQueryResponse:
        """One turn; ``on_turn`` sees the turn before it is published (the SSE stream watches its progress);
        ``timings`` gets the gateway's phases and the turn's hops (the ``Server-Timing`` header).

        ``asked_again``: the correlation id is the client's own, so this may be a question sent again after
        its answer was lost (a gateway killed between recording the turn and sending it): the answer recorded
        for this client, question and conversation is returned as it was, and no second turn runs or is
        recorded.
        """
        started = time.perf_counter()
        clock = timings or TurnTimings()
        if asked_again and client_key is not None:
            with clock.phase("recorded"):
                recorded = await self.conversations.answered(correlation_id, client_key, body.query,
                                                             body.conversation_id)
            if recorded is not None:
                metrics.ANSWERED_FROM_RECORD.inc()
                log.info("answered_from_record", correlation_id=correlation_id, turn_id=recorded.trace_id)
                return recorded
        with span("gateway query", mode=body.response_mode) as current:
            otel_trace_id = trace_id_hex(current)
            with clock.phase("state"):
                state = await self.conversations.state(body.conversation_id)
            payload = TurnRequestedPayload(
                query=body.query, conversation_id=body.conversation_id, response_mode=body.response_mode,
                history=state.history, last_frame=state.last_frame, clarify_streak=state.clarify_streak,
            )
            turn = new_turn(TurnRequested, payload, origin=self.origin, deadline_s=self.deadline_s,
                            llm_calls=self.llm_calls, correlation_id=correlation_id,
                            traceparent=current_traceparent())
            if on_turn is not None:
                on_turn(turn)
            completed: TurnCompleted | None = None
            blocker = await self._blocker()
            if blocker is None:
                try:
                    completed = await self.turns.submit(turn, (turn.deadline - utcnow()).total_seconds(), clock)
                except TurnNotPublished:
                    log.exception("turn_publish_failed", turn_id=turn.turn_id)
                    blocker = Blocker(Reason.BUS_UNAVAILABLE)
                refused = self.admission.refusal(completed) if completed is not None else None
                if refused is not None:
                    completed, blocker = None, Blocker(refused.reason)
                if completed is None and blocker is None:
                    blocker = await self._blocker() or Blocker(Reason.REQUEST_BUDGET_EXHAUSTED)
            if completed is None:
                blocker = blocker or Blocker(Reason.REQUEST_BUDGET_EXHAUSTED)
                message = stage_unavailable_message(blocker.stage) if blocker.stage else None
                response = abstain(trace_id=turn.turn_id, correlation_id=correlation_id, reason=blocker.reason,
                                   conversation_id=body.conversation_id, otel_trace_id=otel_trace_id,
                                   reason_message=message)
            else:
                clock.phases.extend(hop_phases(turn.occurred_at, completed.stage_timings, utcnow()))
                with clock.phase("render"):
                    response = render(completed, otel_trace_id=otel_trace_id)
        with clock.phase("record"):  # the store write; ~0 when written behind the response
            await self.conversations.record(response, completed, body.query, client_key)
        metrics.REQUEST_LATENCY.labels(response.decision).observe(time.perf_counter() - started)
        metrics.RESPONSES.labels(response.decision, response.reason).inc()
        return response

    async def _blocker(self) -> Blocker | None:
        return await self.availability.blocker() if self.availability is not None else None
