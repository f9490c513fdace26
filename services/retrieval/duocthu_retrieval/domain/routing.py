"""Which route answers a frame (seed 003 §13): decided by code from the frame, never by a model.

Route A (drug + section known) reads whole sections by payload filter;
route B answers overview and free-form questions inside one monograph;
route C looks for drugs by condition in ``chi_dinh`` only; route D reads
both drugs' interaction sections.  A frame that fits none of them is not
retrieved for at all — an empty evidence set is an abstention, not a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_contracts.evidence import Route
from duocthu_contracts.frame import ConditionRelation, QueryFrame, TurnType
from duocthu_contracts.sections import SectionKey
from duocthu_retrieval.errors import NotRoutable

#: What an overview ("Tóm tắt …", or a bare drug name) is answered with: what it is, what it is for, when not
#: to use it, the usual adult dose, the main precautions and the serious interactions (issue 18).
OVERVIEW_SECTIONS: tuple[SectionKey, ...] = (
    SectionKey.LOAI_THUOC, SectionKey.CHI_DINH, SectionKey.CHONG_CHI_DINH, SectionKey.LIEU_LUONG_VA_CACH_DUNG,
    SectionKey.THAN_TRONG, SectionKey.TUONG_TAC_THUOC,
)

#: The section a drug–condition relation is looked up in.
RELATION_SECTION: dict[ConditionRelation, SectionKey] = {
    ConditionRelation.TREATS: SectionKey.CHI_DINH,
    ConditionRelation.CONTRAINDICATED: SectionKey.CHONG_CHI_DINH,
    ConditionRelation.CAUSES: SectionKey.TAC_DUNG_KHONG_MONG_MUON,
}


@dataclass(frozen=True)
class RoutePlan:
    route: Route
    drug_ids: tuple[str, ...] = ()
    section_keys: tuple[SectionKey, ...] = ()
    query: str = ""
    condition: str | None = None
    #: Route B: read the listed sections whole (a bare name) rather than search the monograph.
    overview: bool = False


def plan_route(frame: QueryFrame) -> RoutePlan:
    """The route and its filters for ``frame``; raises :class:`NotRoutable`."""
    drugs = tuple(dict.fromkeys(d.drug_id for d in frame.drugs))
    query = frame.standalone_query
    if frame.turn_type is TurnType.INTERACTION and len(drugs) >= 2:
        return RoutePlan(Route.D_INTERACTION, drugs[:2], (SectionKey.TUONG_TAC_THUOC,), query)
    if frame.turn_type is TurnType.CONDITION_TO_DRUG and not drugs:
        if not frame.condition:
            raise NotRoutable("a condition-to-drug question without a condition")
        return RoutePlan(Route.C_CONDITION, (), (SectionKey.CHI_DINH,), query, condition=frame.condition)
    if not drugs:
        raise NotRoutable("no drug and no condition to look up")
    section = frame.section_key
    if section is None and frame.turn_type is TurnType.INTERACTION:
        section = SectionKey.TUONG_TAC_THUOC
    if section is None and frame.turn_type in (TurnType.DRUG_TO_CONDITION, TurnType.CONDITION_RELATION):
        section = RELATION_SECTION[frame.condition_relation or ConditionRelation.TREATS]
    if section is None and frame.turn_type is TurnType.DOSING_CALC:
        section = SectionKey.LIEU_LUONG_VA_CACH_DUNG
    if section is not None:
        return RoutePlan(Route.A_SECTION, drugs, (section,), query, condition=frame.condition)
    overview = frame.turn_type is TurnType.DRUG_OVERVIEW
    return RoutePlan(Route.B_OVERVIEW, drugs[:1], OVERVIEW_SECTIONS if overview else (), query, overview=overview)
