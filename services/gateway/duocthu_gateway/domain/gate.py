"""What a turn's end may show when it did not come sealed by the verifier (DESIGN.md, "One turn").

Any stage may end a turn, but only as ``clarify`` or ``abstain`` in its own,
code-owned wording: the book's content (an answer, the page to read, a claim,
a cited block) reaches a user only through the verifier's sealed subject.  The
rule reads the decision and the content fields; it never believes
``completed_by`` or any other claim a payload makes about itself.
"""

from __future__ import annotations

from duocthu_contracts.decisions import Decision
from duocthu_contracts.messages import TurnCompletedPayload

#: What only a sealed turn end may decide.
SEALED_DECISIONS = frozenset({Decision.ANSWERABLE, Decision.VERIFY_PDF})


def unsealed_problem(payload: TurnCompletedPayload) -> str | None:
    """Why an unsealed turn end may not be shown, or None when it is a plain clarification or abstention."""
    if payload.decision in SEALED_DECISIONS:
        return f"{payload.decision.value} without the verifier's seal (claimed by {payload.completed_by!r})"
    carried = [name for name in ("claims", "evidence", "blocks") if getattr(payload, name)]
    if carried:
        return f"{payload.decision.value} carrying {', '.join(carried)} without the verifier's seal"
    return None
