"""Strict parsing of a model's answer: one malformed entry rejects the whole payload."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from duocthu_contracts.answer import Claim, Draft
from duocthu_generation.errors import MalformedDraft


class _Claim(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(min_length=1)
    citations: list[int] = Field(min_length=1)
    drug_id: str | None = None
    label: str | None = None


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    claims: list[_Claim]
    evidence_sufficient: bool
    clarifying_question: str | None = None
    quick_replies: list[str] = Field(default_factory=list, max_length=4)

    @field_validator("quick_replies")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len({v.strip().lower() for v in value}) != len(value) or any(not v.strip() for v in value):
            raise ValueError("quick replies must be distinct and non-empty")
        return value


def parse_draft(text: str, *, provider: str, model: str | None) -> Draft:
    try:
        raw = json.loads(text)
        answer = _Answer.model_validate(raw)
    except (json.JSONDecodeError, ValidationError) as exc:
        raise MalformedDraft(f"not the answer schema: {str(exc)[:300]}") from exc
    return Draft(
        claims=[Claim(text=c.text, citations=c.citations, drug_id=c.drug_id, label=c.label) for c in answer.claims],
        evidence_sufficient=answer.evidence_sufficient, clarifying_question=answer.clarifying_question,
        quick_replies=answer.quick_replies, generated=True, provider=provider, model=model,
    )
