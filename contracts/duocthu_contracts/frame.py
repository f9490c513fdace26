"""QueryFrame: what the understanding stage concluded a question asks.

Shape follows seed 003 §12.3/§12.4.  Every field that is not in the user's
words stays ``None``/empty: the frame never invents patient facts.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from duocthu_contracts.base import Frozen
from duocthu_contracts.sections import SectionKey


class TurnType(StrEnum):
    DRUG_OVERVIEW = "drug_overview"
    DRUG_ATTRIBUTE = "drug_attribute"
    DRUG_TO_CONDITION = "drug_to_condition"
    CONDITION_TO_DRUG = "condition_to_drug"
    CONDITION_RELATION = "condition_relation"
    INTERACTION = "interaction"
    DOSING_CALC = "dosing_calc"
    SMALLTALK = "smalltalk"
    OUT_OF_SCOPE = "out_of_scope"


class ConditionRelation(StrEnum):
    TREATS = "treats"
    CAUSES = "causes"
    CONTRAINDICATED = "contraindicated"


class MatchKind(StrEnum):
    EXACT = "exact"
    FOLDED = "folded"  # matched after removing diacritics
    ALIAS = "alias"  # back-index "xem" alias or INN spelling
    TRADE_NAME = "trade_name"
    TYPO = "typo"  # bounded edit distance
    CONTEXT = "context"  # carried over from the previous turn



class DrugRef(Frozen):
    drug_id: str
    drug_name: str
    matched_text: str = ""
    match_kind: MatchKind = MatchKind.EXACT


class LabValue(Frozen):
    name: str
    value: str = Field(description="as typed by the user, never reformatted")
    unit: str | None = None


class PrintedBand(Frozen):
    """A band of a released table the user chose (a quick reply such as "eGFR (ml/phút/1,73 m²) 30 – 44").

    Kept as printed, header and key cell apart: it selects that table row and is
    never read back as a single value (30 or 44 is not the patient's eGFR).
    """

    header: str = Field(description="the table's key header as printed, e.g. 'Cân nặng (kg)'")
    band: str = Field(description="the row's key cell as printed, e.g. '30 – 44', '< 30'")


class PatientContext(Frozen):
    age_years: float | None = Field(default=None, ge=0, le=130)
    age_text: str | None = None
    sex: Literal["male", "female"] | None = None
    weight_kg: float | None = Field(default=None, gt=0, le=400)
    conditions: list[str] = Field(default_factory=list)
    allergies: list[str] = Field(default_factory=list)
    current_medications: list[DrugRef] = Field(default_factory=list)
    unresolved_medications: list[str] = Field(default_factory=list)
    pregnant: bool | None = None
    pregnancy_trimester: Literal[1, 2, 3] | None = None
    breastfeeding: bool | None = None
    ckd: bool | None = None
    crcl_ml_min: float | None = Field(default=None, ge=0)
    egfr: float | None = Field(default=None, ge=0)
    creatinine: LabValue | None = None
    hepatic_impairment: bool | None = None
    child_pugh: Literal["A", "B", "C"] | None = None
    liver_labs: list[LabValue] = Field(default_factory=list)
    other_labs: list[LabValue] = Field(default_factory=list)
    prior_treatments: list[str] = Field(default_factory=list)
    band: PrintedBand | None = Field(default=None, description="a table band picked from a quick reply")


class QueryFrame(Frozen):
    turn_type: TurnType
    drugs: list[DrugRef] = Field(default_factory=list)
    unknown_drugs: list[str] = Field(default_factory=list)
    attribute: str | None = Field(default=None, description="the user's cue words for the section")
    section_key: SectionKey | None = None
    population: str | None = Field(default=None, description="e.g. 'Người lớn', 'Trẻ em', as cued")
    age_years: float | None = None
    weight_kg: float | None = None
    route: str | None = None
    condition: str | None = None
    condition_relation: ConditionRelation | None = None
    patient_context: PatientContext = Field(default_factory=PatientContext)
    standalone_query: str = ""
    depends_on_previous_turn: bool = False
    needs_clarify: bool = False
    clarify_reason: str | None = None
    quick_replies: list[str] = Field(default_factory=list, max_length=4)
    system_error: str | None = None
    understood_by: Literal["deterministic", "llm"] = "deterministic"
