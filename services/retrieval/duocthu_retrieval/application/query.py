"""Routes A–D over the live index: the query use case behind the turn handler.

Each route reads chunks (by filter, phrase or hybrid search) and hands them
to the pure evidence policy; the handler turns the outcome into a message.
Routes A (one drug's section) and D (both drugs' interaction sections) are
one read: whole sections, every part, in part order.  Index or embedder
failures are raised as :class:`RetrievalUnavailable`, so a broken dependency
abstains with ``retrieval_unavailable`` instead of looking like "the book
says nothing".
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from duocthu_contracts.corpus import ChunkRecord, SparseVector
from duocthu_contracts.evidence import CandidateAssessment, Route
from duocthu_contracts.frame import QueryFrame
from duocthu_contracts.sections import SectionKey
from duocthu_providers import Embedder, EmbeddingError
from duocthu_retrieval.domain import candidates as cand
from duocthu_retrieval.domain.evidence_policy import PolicyOutcome, answered_by_rows, decide
from duocthu_retrieval.domain.packing import pack
from duocthu_retrieval.domain.routing import RoutePlan
from duocthu_retrieval.domain.search import SearchFilter
from duocthu_retrieval.errors import IndexUnavailable, RerankUnavailable, RetrievalUnavailable
from duocthu_retrieval.ports import ChunkSearch, Reranker
from duocthu_runtime import get_logger
from duocthu_text import SparseEncoder, condition_coverage

log = get_logger(__name__)

Scored = tuple[ChunkRecord, float | None]

#: Routes that read whole sections, where leaving out a table leaves out part of what was asked.
WHOLE_SECTION_ROUTES = frozenset({Route.A_SECTION, Route.D_INTERACTION})


@dataclass(frozen=True)
class RouteTuning:
    route_b_candidates: int = 12
    route_c_min_dense_score: float = 0.80
    route_c_candidates: int = 40
    route_c_min_lexical_coverage: float = cand.MIN_LEXICAL_COVERAGE


@dataclass
class RouteResult:
    plan: RoutePlan
    outcome: PolicyOutcome
    candidate_drug_ids: list[str] = field(default_factory=list)
    assessments: list[CandidateAssessment] = field(default_factory=list)

    @property
    def list_mode(self) -> bool:
        return self.plan.route is Route.C_CONDITION


class Retriever:
    def __init__(self, index: ChunkSearch, embedder: Embedder, sparse: SparseEncoder, *,
                 reranker: Reranker | None = None, tuning: RouteTuning | None = None) -> None:
        self.index = index
        self.embedder = embedder
        self.sparse = sparse
        self.reranker = reranker
        self.tuning = tuning or RouteTuning()

    async def run(self, plan: RoutePlan, frame: QueryFrame) -> RouteResult:
        try:
            if plan.route in WHOLE_SECTION_ROUTES:
                chunks = await self.whole_sections(plan)
                ctx = frame.patient_context
                rows = plan.route is Route.A_SECTION and answered_by_rows(
                    [c for c, _ in chunks], ctx.crcl_ml_min is not None or ctx.egfr is not None or ctx.band is not None)
                return RouteResult(plan, decide(plan.route, chunks, visual_blocks_whole_answer=not rows))
            if plan.route is Route.B_OVERVIEW:
                return RouteResult(plan, decide(plan.route, await self.one_monograph(plan),
                                                visual_blocks_whole_answer=False))
            return await self.condition_to_drugs(plan, frame)
        except IndexUnavailable as exc:
            raise RetrievalUnavailable(str(exc)) from exc

    # ------------------------------------------------------------------ A and D: whole sections

    async def whole_sections(self, plan: RoutePlan) -> list[Scored]:
        """Every part of each (drug, section), in part order — never top-k."""
        out: list[Scored] = []
        for drug_id in plan.drug_ids:
            for key in plan.section_keys:
                out.extend((c, None) for c in await self.index.scroll_section(drug_id, key))
        return out

    # ------------------------------------------------------------------ B: one monograph

    async def one_monograph(self, plan: RoutePlan) -> list[Scored]:
        drug_id = plan.drug_ids[0]
        if plan.overview:
            return [(c, None) for c in await self.index.scroll_drug(drug_id, plan.section_keys)]
        vector, sparse = await self._encode(plan.query)
        hits = await self.index.hybrid_search(vector, sparse, SearchFilter(drug_ids=(drug_id,)),
                                              limit=self.tuning.route_b_candidates)
        ranked = await self._rerank(plan.query, [(h.chunk, h.score) for h in hits])
        return pack(ranked)

    async def _rerank(self, query: str, ranked: list[Scored]) -> list[Scored]:
        if self.reranker is None or len(ranked) < 2:
            return ranked
        head, tail = ranked[:self.reranker.max_candidates], ranked[self.reranker.max_candidates:]
        try:
            order = await self.reranker.rerank(query, [c for c, _ in head])
            if sorted(order) != list(range(len(head))):
                raise RerankUnavailable(f"reranker returned an invalid permutation {order}")
        except (RerankUnavailable, TimeoutError, OSError) as exc:  # fail-open: the original order is valid
            log.warning("rerank_failed", error=f"{type(exc).__name__}: {exc}")
            return ranked
        return [head[i] for i in order] + tail

    # ------------------------------------------------------------------ C: condition → drugs

    async def condition_to_drugs(self, plan: RoutePlan, frame: QueryFrame) -> RouteResult:
        condition = plan.condition or ""
        only_indications = SearchFilter(section_keys=(SectionKey.CHI_DINH,), exclude_quarantined=True)
        # phrase matches first, then the semantic step's (both floors kept): an indication worded differently
        # ("Diệt Helicobacter pylori" for "nhiễm Helicobacter pylori") is not lost when the phrase finds others
        phrase = await self.index.text_match(condition, only_indications, match="phrase")
        hits: list[Scored] = [(c, None) for c in phrase]
        vector, sparse = await self._encode(condition)
        found = await self.index.hybrid_search(
            vector, sparse, only_indications, limit=self.tuning.route_c_candidates,
            min_dense_score=self.tuning.route_c_min_dense_score)
        hits += [(h.chunk, h.score) for h in found
                 if condition_coverage(condition, h.chunk.text) >= self.tuning.route_c_min_lexical_coverage]
        grouped = cand.group_by_drug(hits)
        drug_ids = list(dict.fromkeys(c.drug_id for c, _ in grouped))
        meds = frame.patient_context.current_medications
        med_atc = {m.drug_id: [code for c in await self.index.scroll(SearchFilter(drug_ids=(m.drug_id,)), limit=1)
                               for code in c.atc_codes] for m in meds}
        queries = cand.safety_queries(frame.patient_context, med_atc)
        assessments: list[CandidateAssessment] = []
        extra: list[Scored] = []
        for drug_id in drug_ids[:cand.STAGE2_CANDIDATES] if queries else []:
            sections_needed = tuple(dict.fromkeys(k for q in queries for k in q.sections))
            chunks = await self.index.scroll_drug(drug_id, sections_needed)
            by_key: dict[SectionKey, list[ChunkRecord]] = {}
            for chunk in chunks:
                if not chunk.has_quarantined_content:
                    by_key.setdefault(chunk.section_key, []).append(chunk)
            indication_ids = [c.chunk_id for c, _ in grouped if c.drug_id == drug_id]
            name = next(c.drug_name for c, _ in grouped if c.drug_id == drug_id)
            assessment, cited = cand.assess(drug_id, name, indication_ids, queries, by_key)
            assessments.append(assessment)
            extra.extend((c, None) for c in cited)
        outcome = decide(plan.route, grouped + extra, visual_blocks_whole_answer=False)
        return RouteResult(plan, outcome, candidate_drug_ids=drug_ids, assessments=assessments)

    async def _encode(self, text: str) -> tuple[list[float], SparseVector]:
        try:
            vector = await asyncio.to_thread(self.embedder.embed_query, text)
        except EmbeddingError as exc:
            raise RetrievalUnavailable(f"query embedding failed: {type(exc).__name__}: {exc}") from exc
        return vector, self.sparse.encode_query(text)
