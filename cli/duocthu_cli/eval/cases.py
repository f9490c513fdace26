"""The golden answer battery's case format.

A case is one conversation of one or more turns; each turn states what a
correct response must (and must not) contain.  Expectations are sets where
the design allows several honest outcomes (e.g. a renal dose question whose
section holds a table may be answered or sent to the PDF), never a single
hard-coded answer text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Category = Literal[
    "general_condition", "specific_condition", "ambiguity", "relation_confusion", "comorbidity",
    "current_medication", "pregnancy_lactation", "renal_hepatic", "allergy", "named_drug", "interaction",
    "conversation", "section_lookup", "dosage",
    # focus battery (issue 18): answers aimed at the patient in the question
    "population", "renal_band", "condition_dose", "condition_list", "patient_case", "overview", "table_text",
    # adversarial
    "fabricated_name", "veterinary", "injection", "price", "double_dose", "prompt_extraction", "out_of_scope",
]
ADVERSARIAL: frozenset[str] = frozenset(
    {"fabricated_name", "veterinary", "injection", "price", "double_dose", "prompt_extraction", "out_of_scope"}
)


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    decision: list[str]
    reason: list[str] = Field(default_factory=list, description="allowed reasons; empty = any")
    cited_drugs: list[str] = Field(default_factory=list, description="each must be cited when answerable")
    cited_sections: list[str] = Field(default_factory=list, description="each must be cited when answerable")
    only_sections: list[str] = Field(default_factory=list, description="citations may come from these only")
    forbidden_drugs: list[str] = Field(default_factory=list, description="never cited")
    max_drugs: int | None = None
    resolved_drugs: list[str] = Field(default_factory=list, description="each must be in resolved_drug_ids")
    forbidden_text: list[str] = Field(default_factory=list, description="phrases no claim may contain")
    must_appear: list[str] = Field(default_factory=list, description="each must be in some claim (answerable)")
    must_not_lead: list[str] = Field(default_factory=list, description="the first claim may contain none of these")
    max_claims: int | None = None
    excluded_first: list[str] = Field(default_factory=list, description=(
        "drugs whose own contraindication excludes the patient: when offered, their first claim cites "
        "chong_chi_dinh"))


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str
    expect: Expect


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    category: Category
    turns: list[Turn] = Field(min_length=1)
    note: str = ""

    @property
    def adversarial(self) -> bool:
        return self.category in ADVERSARIAL


def default_cases_path() -> Path:
    return Path(__file__).parent / "data" / "answers_golden.jsonl"


def focus_cases_path() -> Path:
    """The focus battery (issue 18): populations, bands, condition lines, patient cases, overviews, tables."""
    return Path(__file__).parent / "data" / "answers_focus.jsonl"


def load_cases(path: Path | None = None) -> list[Case]:
    path = path or default_cases_path()
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                cases.append(Case.model_validate(json.loads(line)))
            except ValueError as exc:
                raise ValueError(f"{path.name}:{number}: {exc}") from exc
    ids = [c.id for c in cases]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path.name}: duplicate case ids")
    return cases
