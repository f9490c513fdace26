"""A turn's message chain in causal order, and what it says (pure functions)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from duocthu_cli.audit.records import Recorded

PROGRESS = "rag.turn.progress"
REQUESTED = "rag.turn.requested"
COMPLETED = "rag.turn.completed"
VERIFIED = "rag.turn.verified"
#: A turn's end: any stage's (clarify, abstain), or the verifier's sealed one.
ENDS = (COMPLETED, VERIFIED)
DRAFTED = "rag.answer.drafted"


def causal_order(records: Iterable[Recorded]) -> list[Recorded]:
    """Order a turn's messages so that every message follows its cause.

    Stream order is almost causal already, but a stage's output can be
    stored before a slower sibling's; walking the causation links from the
    root makes the chain read as requested → understood → … → completed.
    """
    chain = [r for r in records if r.kind != PROGRESS]
    by_cause: dict[str | None, list[Recorded]] = {}
    ids = {r.message_id for r in chain}
    for record in sorted(chain, key=lambda r: r.seq):
        cause = record.causation_id if record.causation_id in ids else None
        by_cause.setdefault(cause, []).append(record)
    ordered: list[Recorded] = []
    stack = list(reversed(by_cause.get(None, [])))
    while stack:
        record = stack.pop()
        ordered.append(record)
        stack.extend(reversed(by_cause.get(record.message_id, [])))
    return ordered


@dataclass(frozen=True)
class TurnSummary:
    turn_id: str
    correlation_id: str
    query: str
    decision: str | None
    reason: str | None
    completed_by: str | None
    sealed_by: str | None = None  #: the key id of the verifier's seal, when the verifier ended the turn
    stage_timings: list[dict[str, Any]] = field(default_factory=list)
    evidence_ids: list[str] = field(default_factory=list)
    cited_chunk_ids: list[str] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    drafts: int = 0
    rejections: int = 0


def cited_chunk_ids(completed: dict[str, Any]) -> list[str]:
    """Chunk ids of the evidence the answer's claims cite (all evidence when nothing is cited)."""
    payload = completed.get("payload", {})
    evidence = payload.get("evidence", [])
    cited = sorted({i for claim in payload.get("claims", []) for i in claim.get("citations", [])})
    chosen = [evidence[i - 1] for i in cited if 0 < i <= len(evidence)] if cited else evidence
    return sorted({ref["chunk_id"] for ev in chosen for ref in ev.get("source_refs", [])})


def summarize(chain: list[Recorded]) -> TurnSummary:
    requested = next((r for r in chain if r.kind == REQUESTED), None)
    completed = next((r for r in reversed(chain) if r.kind in ENDS), None)
    head = requested or (chain[0] if chain else None)
    if head is None:
        raise ValueError("empty chain")
    done = completed.payload if completed else {}
    evidence = done.get("evidence", [])
    return TurnSummary(
        turn_id=head.turn_id or "",
        correlation_id=str(head.document.get("correlation_id", "")),
        query=str(head.payload.get("query", "")),
        decision=done.get("decision"),
        reason=done.get("reason"),
        completed_by=done.get("completed_by"),
        sealed_by=(done.get("seal") or {}).get("key_id"),
        stage_timings=list(completed.document.get("stage_timings", [])) if completed else [],
        evidence_ids=[str(ev.get("evidence_id")) for ev in evidence],
        cited_chunk_ids=cited_chunk_ids(completed.document) if completed else [],
        citations=[
            {"index": i, "drug_id": ev.get("drug_id"), "section_key": ev.get("section_key"),
             "printed_page_range": (ev.get("source_refs") or [{}])[0].get("printed_page_range")}
            for i, ev in enumerate(evidence, start=1)
        ],
        drafts=sum(1 for r in chain if r.kind == DRAFTED),
        rejections=sum(1 for r in chain if r.kind == "rag.answer.rejected"),
    )
