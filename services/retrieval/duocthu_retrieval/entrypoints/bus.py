"""Bus entry points of the retrieval stage: thin translations of a message or a request into a use case call.

A turn's frame becomes a route plan and the route's evidence (or the turn's
end); a corpus batch goes to index maintenance; a request (monograph mode,
index status, rebuild) is answered by one replica of the queue group, FastStream
decoding the request model and encoding the reply model.  The index is opened
at start-up, after this wiring, so each entry point is given a getter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from faststream.nats import NatsBroker

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import CorpusBatchEmbedded, EvidenceRetrieved, EvidenceRetrievedPayload, TurnUnderstood
from duocthu_contracts.rpc import (
    DrugListReply,
    DrugListRequest,
    IndexRebuildReply,
    IndexRebuildRequest,
    IndexStatusReply,
    IndexStatusRequest,
    SectionListReply,
    SectionListRequest,
    SectionTextReply,
    SectionTextRequest,
)
from duocthu_retrieval import metrics
from duocthu_retrieval.application import browse
from duocthu_retrieval.application.maintenance import IndexMaintenance
from duocthu_retrieval.application.query import Retriever
from duocthu_retrieval.domain.routing import plan_route
from duocthu_retrieval.errors import NotRoutable, RetrievalUnavailable
from duocthu_retrieval.ports import ChunkSearch
from duocthu_runtime import Handler, StageContext


def turn_handler(retriever: Callable[[], Retriever]) -> Handler[TurnUnderstood]:
    """A frame in, evidence for generation (or the turn's end) out."""

    async def handle_turn(message: TurnUnderstood, ctx: StageContext[TurnUnderstood]) -> Sequence[Message]:
        payload = message.payload
        frame = payload.frame
        try:
            plan = plan_route(frame)
        except NotRoutable as exc:
            metrics.ROUTE_OUTCOMES.labels("none", Reason.NO_EVIDENCE).inc()
            return [ctx.complete(Decision.ABSTAIN, Reason.NO_EVIDENCE, frame=frame, detail=str(exc))]
        try:
            result = await retriever().run(plan, frame)
        except RetrievalUnavailable as exc:
            metrics.ROUTE_OUTCOMES.labels(plan.route, Reason.RETRIEVAL_UNAVAILABLE).inc()
            return [ctx.complete(Decision.ABSTAIN, Reason.RETRIEVAL_UNAVAILABLE, frame=frame, route=plan.route,
                                 detail=str(exc)[:500])]
        outcome = result.outcome
        metrics.ROUTE_OUTCOMES.labels(plan.route, outcome.reason).inc()
        resolved = [d.drug_id for d in frame.drugs] or result.candidate_drug_ids
        if outcome.decision is Decision.ABSTAIN:  # verify_pdf goes on: the page is shown once the verifier sealed it
            return [ctx.complete(outcome.decision, outcome.reason, frame=frame, route=plan.route,
                                 evidence=outcome.evidence, resolved_drug_ids=resolved,
                                 candidate_assessments=result.assessments, detail=outcome.detail)]
        return [ctx.derive(EvidenceRetrieved, EvidenceRetrievedPayload(
            query=payload.query, conversation_id=payload.conversation_id, response_mode=payload.response_mode,
            frame=frame, route=plan.route, evidence=outcome.evidence, list_mode=result.list_mode,
            candidate_drug_ids=result.candidate_drug_ids, candidate_assessments=result.assessments,
        ))]

    return handle_turn


def batch_handler(maintenance: Callable[[], IndexMaintenance]) -> Handler[CorpusBatchEmbedded]:
    """A corpus batch into the release's collection; the release's completion out once it is whole."""

    async def handle_batch(message: CorpusBatchEmbedded, ctx: StageContext[CorpusBatchEmbedded]) -> Sequence[Message]:
        return await maintenance().apply(message)

    return handle_batch


def serve_requests(broker: NatsBroker, *, queue: str, index: Callable[[], ChunkSearch],
                   maintenance: Callable[[], IndexMaintenance]) -> None:
    """Answer monograph-mode and index requests, each by one replica of ``queue``."""

    @broker.subscriber(IndexStatusRequest.SUBJECT, queue=queue)
    async def index_status(request: IndexStatusRequest) -> IndexStatusReply:
        return await maintenance().status()

    @broker.subscriber(IndexRebuildRequest.SUBJECT, queue=queue)
    async def index_rebuild(request: IndexRebuildRequest) -> IndexRebuildReply:
        return await maintenance().request_rebuild(request)

    @broker.subscriber(DrugListRequest.SUBJECT, queue=queue)
    async def drugs(request: DrugListRequest) -> DrugListReply:
        return await browse.list_drugs(index())

    @broker.subscriber(SectionListRequest.SUBJECT, queue=queue)
    async def sections(request: SectionListRequest) -> SectionListReply:
        return await browse.list_sections(index(), request)

    @broker.subscriber(SectionTextRequest.SUBJECT, queue=queue)
    async def section_text(request: SectionTextRequest) -> SectionTextReply:
        return await browse.section_text(index(), request)
