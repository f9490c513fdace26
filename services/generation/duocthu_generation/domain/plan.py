"""The answer plan, derived from the frame and the evidence before anything is written (seed 000, "Answer plan")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from duocthu_contracts.answer import AnswerPlan, Layout
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.sections import WARNING_SECTIONS, SectionKey

_DOSE_CUES = re.compile(r"\b(liều|bao nhiêu|mg|ml|viên|lần/ngày|mấy lần|uống mấy)\b", re.IGNORECASE)


def make_plan(frame: QueryFrame, evidence: Sequence[Evidence], route: Route, *, list_mode: bool) -> AnswerPlan:
    sections = {e.section_key for e in evidence}
    dosage = sections == {SectionKey.LIEU_LUONG_VA_CACH_DUNG}
    layout = Layout.DOSAGE if dosage else Layout.BULLET_LIST if list_mode or len(evidence) > 1 else Layout.PROSE
    overview = frame.turn_type is TurnType.DRUG_OVERVIEW
    verbosity = "short" if overview or list_mode else "full" if route in (Route.A_SECTION, Route.D_INTERACTION) \
        else "normal"
    return AnswerPlan(
        verbosity=verbosity, layout=layout,
        reasoning_mode="candidate_list" if list_mode else "synthesis" if len({e.drug_id for e in evidence}) > 1
        else "direct_lookup",
        show_heading=len(sections) > 1, needs_warning=bool(sections & WARNING_SECTIONS), list_mode=list_mode,
        numeric_suppression=not dosage and not _DOSE_CUES.search(frame.standalone_query or ""),
    )
