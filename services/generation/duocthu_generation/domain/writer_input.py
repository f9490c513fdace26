"""What a writer is given: the question, the evidence and the plan; the same for every writer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.answer import AnswerPlan
from duocthu_contracts.evidence import CandidateAssessment, Evidence, Route
from duocthu_contracts.frame import QueryFrame


@dataclass(frozen=True)
class WriterInput:
    frame: QueryFrame
    evidence: Sequence[Evidence]
    route: Route
    plan: AnswerPlan
    #: The question as the model writer is shown it (the frame's standalone question, or the user's words).
    question: str = ""
    candidate_drug_ids: Sequence[str] = ()
    assessments: Sequence[CandidateAssessment] = ()
    #: Verbatim quotes a rejected draft was missing (repair); they must be covered this time.
    must_cover: Sequence[str] = ()
