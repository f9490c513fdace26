"""What the verifier's seal covers, as bytes: one canonical encoding, pure (no key, no I/O).

The seal binds a turn's end to the turn it belongs to and to everything a user
is shown from it: the turn id and lane, the decision and reason, the rendered
answer, the claims (text, citations, drug, label), the quick replies, the
blocks, plan, route, resolved drugs and candidate assessments, the verdict
(its check records decide which labels are shown), and every cited evidence
block — its chunk ids and provenance, and the sha256 of its text instead of
the text itself.  Left out, on purpose: the question, the conversation id, the
frame and the operator-facing ``detail`` — what ``duocthu audit redact`` may
erase at rest (patient context, the query) must not break a seal — and
``completed_by``, which nothing trusts.

The encoding is JSON with sorted keys, no whitespace and UTF-8 text, of each
model dumped with its default values left out (so a later minor version that
adds an optional field does not change the bytes of a record sealed before
it), after a fixed prefix naming the scheme.  Sign and check the same
function's output; never re-derive it elsewhere.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from duocthu_contracts.evidence import Evidence
from duocthu_contracts.messages import TurnCompleted
from duocthu_contracts.seal import SEAL_SCHEME

PREFIX = f"duocthu verdict seal {SEAL_SCHEME}\n".encode()


def _dump(model: BaseModel) -> Any:
    return model.model_dump(mode="json", exclude_defaults=True)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _evidence(block: Evidence) -> dict[str, Any]:
    view: dict[str, Any] = block.model_dump(mode="json", exclude_defaults=True, exclude={"text"})
    view["text_sha256"] = text_sha256(block.text)
    return view


def verdict_view(completed: TurnCompleted) -> dict[str, Any]:
    """The sealed fields of a turn's end, as plain JSON values."""
    p = completed.payload
    return {
        "turn_id": completed.turn_id,
        "lane": completed.lane.value,
        "decision": p.decision.value,
        "reason": p.reason.value,
        "answer": p.answer,
        "claims": [_dump(c) for c in p.claims],
        "quick_replies": list(p.quick_replies),
        "evidence": [_evidence(e) for e in p.evidence],
        "blocks": [_dump(b) for b in p.blocks],
        "plan": _dump(p.plan) if p.plan is not None else None,
        "route": p.route.value if p.route is not None else None,
        "resolved_drug_ids": list(p.resolved_drug_ids),
        "generated": p.generated,
        "candidate_assessments": [_dump(a) for a in p.candidate_assessments],
        "verdict": _dump(p.verdict) if p.verdict is not None else None,
    }


def sealed_bytes(completed: TurnCompleted) -> bytes:
    """The exact bytes the verifier signs for ``completed`` (and a checker verifies)."""
    body = json.dumps(verdict_view(completed), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return PREFIX + body.encode("utf-8")
