"""What the verification use case needs from the outside, as Protocols.

The verifier never shares code with generation (import-linter enforces it):
its judge is its own port over a chat provider, independent of the writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from duocthu_contracts.answer import CheckRecord, Claim
from duocthu_contracts.evidence import Evidence
from duocthu_contracts.messages import TurnCompleted, TurnVerified
from duocthu_providers import TurnBudget
from duocthu_verifier.domain.judge_prompt import JudgeResult
from duocthu_verifier.domain.terms import TermContext


class EntailmentJudge(Protocol):
    """One pass of a judge over the claims and the blocks they cite (no vote: a retry is not independent)."""

    @property
    def name(self) -> str:
        """``provider/model``, recorded on the verdict."""
        ...

    async def judge(self, question: str, claims: Sequence[Claim], evidence: Sequence[Evidence],
                    budget: TurnBudget) -> tuple[JudgeResult | None, CheckRecord | None, str]:
        """The judge's result, or the record of why it could not be consulted; plus the raw output's sha256."""
        ...


class ReleaseTerms(Protocol):
    """The live release's term context: its statistics (once counted) and the everyday-word frequencies."""

    def context(self) -> TermContext:
        """What the specific-term check consults for the next draft."""
        ...


class VerdictSigner(Protocol):
    """Seals a turn's end with the verifier's private key, which nothing but this port's adapter holds."""

    @property
    def key_id(self) -> str: ...

    def seal(self, completed: TurnCompleted) -> TurnVerified:
        """``completed`` as the verifier publishes it: sealed, on the verifier's own subject."""
        ...
