"""Structured patient context from the question's own words (seed 003 §12.4).

Only what the user wrote is recorded: a value is kept as typed next to its
number (``LabValue.value``), and nothing is inferred (no "probably an adult").
"""

from __future__ import annotations

import re

from duocthu_contracts.frame import DrugRef, LabValue, PatientContext
from duocthu_text.vietnamese import casefold_keep_marks, fold

_NUM = r"(\d+(?:[.,]\d+)?)"
_AGE_YEARS = re.compile(rf"\b{_NUM}\s*tuoi\b")
#: "3 tháng tuổi" is an age; "mang thai 3 tháng", "3 tháng đầu/cuối" is the pregnancy's, not the patient's.
_AGE_MONTHS = re.compile(rf"(?<!thai )\b{_NUM}\s*thang( tuoi)?\b(?! (dau|giua|cuoi))")
_WEIGHT = re.compile(rf"\b{_NUM}\s*(kg|kilo|can)\b")
_CRCL = re.compile(rf"\b(crcl|clcr|do thanh thai( creatinin)?)\s*(la|=|:|khoang)?\s*{_NUM}")
_EGFR = re.compile(rf"\b(egfr|mlct|muc loc cau than)\s*(la|=|:|khoang)?\s*{_NUM}")
_CREAT = re.compile(rf"(?<!thanh thai )\b(creatinin( huyet thanh| mau)?)\s*(la|=|:|khoang)?\s*{_NUM}\s*(umol/l|µmol/l|mg/dl)?")
_CHILD_PUGH = re.compile(r"\bchild[- ]?pugh\s*(?:nhom|do|class)?\s*([abc])\b")
_LIVER_LAB = re.compile(rf"\b(alt|ast|bilirubin)\s*(la|=|:)?\s*{_NUM}")
_ALLERGY = re.compile(r"\bdi ung (voi )?(?P<what>[a-z0-9 -]+?)(?:\s*(?:,|\.|\?|$|\bva\b|\bdang\b|\bbi\b|\bthi\b|\bdung\b|\buong\b|\bco\b|\bduoc\b|\bnen\b))")
_CONDITION = re.compile(r"\b(?:bi|mac|co tien su|tien su|benh nen( la)?|co benh)\s+(?P<what>[a-z0-9 -]+?)"
                        r"(?:\s*(?:,|\.|\?|$|\bva\b|\bdang\b|\bthi\b|\bco\b|\bnen\b|\bduoc\b|\buong\b|\bdung\b))")
_MEDS_CLAUSE = re.compile(r"\b(dang (dung|uong|su dung|dieu tri bang)|dung kem|uong kem)\b(?P<rest>[^.?;,]*)")


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def _typed(question: str, folded_span: tuple[int, int]) -> str:
    """The user's own characters for a span found in the folded text (folding keeps positions)."""
    return question[folded_span[0]:folded_span[1]]


def extract(question: str, meds: list[DrugRef] | None = None) -> PatientContext:
    text = fold(question)
    fields: dict[str, object] = {}
    years = _AGE_YEARS.search(text)
    if (m := _AGE_MONTHS.search(text)) and (m.group(2) or years is None):
        fields["age_years"] = round(_num(m.group(1)) / 12, 3)
        fields["age_text"] = _typed(question, m.span())
    elif m := years:
        fields["age_years"] = _num(m.group(1))
        fields["age_text"] = _typed(question, m.span())
    if m := _WEIGHT.search(text):
        fields["weight_kg"] = _num(m.group(1))
    marked = casefold_keep_marks(question)
    if re.search(r"\b(nam|nam giới|đàn ông|ông|cậu bé|bé trai)\b", marked):
        fields["sex"] = "male"
    elif re.search(r"\b(nữ|nữ giới|phụ nữ|bà|chị|cô bé|bé gái|thai phụ|sản phụ)\b", marked):
        fields["sex"] = "female"
    if re.search(r"\b(mang thai|co thai|co bau|dang bau|thai phu|thai ky)\b", text):
        fields["pregnant"] = True
        if m := re.search(r"\b(3 thang (dau|giua|cuoi)|tam ca nguyet (thu )?([123]))\b", text):
            word = m.group(2) or m.group(4)
            fields["pregnancy_trimester"] = {"dau": 1, "giua": 2, "cuoi": 3, "1": 1, "2": 2, "3": 3}[word]
    if re.search(r"\b(cho con bu|dang cho bu|nuoi con bang sua me)\b", text):
        fields["breastfeeding"] = True
    if re.search(r"\b(suy than|benh than man|benh than)\b", text):
        fields["ckd"] = True
    if m := _CRCL.search(text):
        fields["crcl_ml_min"] = _num(m.group(4))
    if m := _EGFR.search(text):
        fields["egfr"] = _num(m.group(3))
    if m := _CREAT.search(text):
        fields["creatinine"] = LabValue(name="creatinin", value=m.group(4), unit=m.group(5))
    if re.search(r"\b(suy gan|xo gan|benh gan)\b", text):
        fields["hepatic_impairment"] = True
    if m := _CHILD_PUGH.search(text):
        fields["child_pugh"] = m.group(1).upper()
        fields["hepatic_impairment"] = True
    labs = [LabValue(name=m.group(1).upper(), value=m.group(3)) for m in _LIVER_LAB.finditer(text)]
    if labs:
        fields["liver_labs"] = labs
    allergies = [_typed(question, m.span("what")).strip() for m in _ALLERGY.finditer(text)]
    if allergies:
        fields["allergies"] = allergies
    conditions = [_typed(question, m.span("what")).strip() for m in _CONDITION.finditer(text)]
    conditions = [c for c in conditions if c and not re.match(r"^(di ung|mang thai|co thai)", fold(c))]
    if conditions:
        fields["conditions"] = conditions
    if meds:
        fields["current_medications"] = meds
    return PatientContext.model_validate(fields)


def medication_span(question: str) -> tuple[int, int] | None:
    """Where the "đang dùng …" clause is, so the drugs in it count as current medications."""
    m = _MEDS_CLAUSE.search(fold(question))
    return m.span("rest") if m else None
