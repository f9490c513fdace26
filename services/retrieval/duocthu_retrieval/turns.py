"""The retrieval stage's turn handler: a frame in, evidence (or the turn's end) out."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import EvidenceRetrieved, EvidenceRetrievedPayload, TurnUnderstood
from duocthu_retrieval import metrics
from duocthu_retrieval.domain.routing import NotRoutable, plan_route
from duocthu_retrieval.routes import RetrievalUnavailable, Retriever
from duocthu_runtime.bus.stage import Handler, StageContext


def turn_handler(retrievers: Callable[[], Retriever]) -> Handler[TurnUnderstood]:
    """``retrievers`` gives the replica's current retriever (the index is opened at start-up, after wiring)."""

    async def handle_turn(message: TurnUnderstood, ctx: StageContext[TurnUnderstood]) -> Sequence[Message]:
        payload = message.payload
        frame = payload.frame
        try:
            plan = plan_route(frame)
        except NotRoutable as exc:
            metrics.ROUTE_OUTCOMES.labels("none", Reason.NO_EVIDENCE).inc()
            return [ctx.complete(Decision.ABSTAIN, Reason.NO_EVIDENCE, frame=frame, detail=str(exc))]
        try:
            result = await retrievers().run(plan, frame)
        except RetrievalUnavailable as exc:
            metrics.ROUTE_OUTCOMES.labels(plan.route, Reason.RETRIEVAL_UNAVAILABLE).inc()
            return [ctx.complete(Decision.ABSTAIN, Reason.RETRIEVAL_UNAVAILABLE, frame=frame, route=plan.route,
                                 detail=str(exc)[:500])]
        outcome = result.outcome
        metrics.ROUTE_OUTCOMES.labels(plan.route, outcome.reason).inc()
        resolved = [d.drug_id for d in frame.drugs] or result.candidate_drug_ids
        if outcome.decision is not Decision.ANSWERABLE:
            return [ctx.complete(outcome.decision, outcome.reason, frame=frame, route=plan.route,
                                 evidence=outcome.evidence, resolved_drug_ids=resolved,
                                 candidate_assessments=result.assessments, detail=outcome.detail)]
        return [ctx.derive(EvidenceRetrieved, EvidenceRetrievedPayload(
            query=payload.query, conversation_id=payload.conversation_id, response_mode=payload.response_mode,
            frame=frame, route=plan.route, evidence=outcome.evidence, list_mode=result.list_mode,
            candidate_drug_ids=result.candidate_drug_ids, candidate_assessments=result.assessments,
        ))]

    return handle_turn
