"""The gate: which turn ends may be shown (the verifier is the only way an answer reaches a user).

A turn end on the verifier's subject (``TurnVerified``) is shown only when its
seal verifies under a configured public key, over exactly what it shows; a
turn end on the open subject (any stage's ``TurnCompleted``) only when it is a
plain clarification or abstention (``domain/gate.py``).  Anything else is
refused: the turn abstains with a reason of its own, the refusal is counted
(``duocthu_gateway_completions_refused_total``) and logged as a security
event, and nothing of the refused message is shown or recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_contracts.decisions import Reason
from duocthu_contracts.messages import TurnCompleted, TurnVerified
from duocthu_gateway import metrics
from duocthu_gateway.domain.gate import unsealed_problem
from duocthu_gateway.ports import SealChecker
from duocthu_runtime import get_logger

log = get_logger(__name__)


@dataclass(frozen=True)
class Refused:
    reason: Reason
    detail: str


class Admission:
    def __init__(self, seals: SealChecker) -> None:
        self.seals = seals

    def refusal(self, completed: TurnCompleted) -> Refused | None:
        """Why ``completed`` may not be shown (counted and logged here), or None when it may."""
        refused = self._judge(completed)
        if refused is not None:
            metrics.COMPLETIONS_REFUSED.labels(refused.reason).inc()
            seal = completed.payload.seal.key_id if isinstance(completed, TurnVerified) else None
            log.warning("security_event", kind="turn_end_refused", reason=refused.reason, detail=refused.detail,
                        turn_id=completed.turn_id, message_id=completed.message_id, schema=completed.schema_,
                        decision=completed.payload.decision, claimed_by=completed.payload.completed_by,
                        key_id=seal)
        return refused

    def _judge(self, completed: TurnCompleted) -> Refused | None:
        if isinstance(completed, TurnVerified):
            problem = self.seals.problem(completed)
            return None if problem is None else Refused(Reason.INVALID_VERDICT_SEAL, problem)
        detail = unsealed_problem(completed.payload)
        return None if detail is None else Refused(Reason.ANSWER_NOT_FROM_VERIFIER, detail)
