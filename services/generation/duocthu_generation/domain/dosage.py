"""Choosing the dose paragraphs a question asked for, by the labels the book prints.

A dose is only meaningful with its label, so the extractive answer keeps
whole labelled paragraphs and never mixes bands: with an age or weight in
the question, a paragraph is chosen when its label's band contains it; with
a population word, when the label names it; with neither, the question is
sent back with the labels the section actually prints as quick replies.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.frame import QueryFrame
from duocthu_generation.domain.paragraphs import Paragraph
from duocthu_text.vietnamese import fold

_NUM = r"(\d+(?:,\d+)?)"
_UNIT = r"(tuổi|tháng|kg)"


@dataclass(frozen=True)
class Band:
    unit: str  # "years" or "kg"
    low: float
    high: float
    low_inclusive: bool = True
    high_inclusive: bool = False

    def contains(self, value: float) -> bool:
        above = value >= self.low if self.low_inclusive else value > self.low
        below = value <= self.high if self.high_inclusive else value < self.high
        return above and below


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def _unit(word: str, value: float) -> tuple[str, float]:
    if word == "tháng":
        return "years", value / 12
    return ("years", value) if word == "tuổi" else ("kg", value)


def bands(label: str) -> list[Band]:
    """Age/weight bands a label states ("từ 1 đến 5 tuổi", "dưới 50 kg", "trên 10 kg đến 33 kg" …)."""
    text = label.lower()
    out: list[Band] = []
    for m in re.finditer(rf"(từ|trên)\s+{_NUM}\s*{_UNIT}?\s*(?:đến|-|–)\s*(dưới\s+)?{_NUM}\s*{_UNIT}", text):
        unit, high = _unit(m.group(6), _num(m.group(5)))
        _, low = _unit(m.group(3) or m.group(6), _num(m.group(2)))
        out.append(Band(unit, low, high, low_inclusive=m.group(1) == "từ", high_inclusive=not m.group(4)))
    if out:
        return out
    for m in re.finditer(rf"(từ|trên|dưới)\s+{_NUM}\s*{_UNIT}", text):
        unit, value = _unit(m.group(3), _num(m.group(2)))
        if m.group(1) == "dưới":
            out.append(Band(unit, 0.0, value))
        else:
            out.append(Band(unit, value, math.inf, low_inclusive=m.group(1) == "từ"))
    return out


def label_of(p: Paragraph) -> str | None:
    """The population label a paragraph's dose belongs to (its own, else the scope's)."""
    return p.label or p.population


def scope_of(p: Paragraph) -> str:
    """Everything that labels a paragraph: the population scope it sits under and its own label."""
    return " ".join(x for x in (p.population, p.label) if x)


def matches(label: str, frame: QueryFrame) -> bool:
    found = bands(label)
    folded = fold(label)
    if frame.population and fold(frame.population) not in folded:
        return False
    for unit, value in (("years", frame.age_years or frame.patient_context.age_years),
                        ("kg", frame.weight_kg or frame.patient_context.weight_kg)):
        if value is None:
            continue
        relevant = [b for b in found if b.unit == unit]
        if relevant:
            return any(b.contains(value) for b in relevant)
    if frame.population:
        return fold(frame.population) in folded
    age = frame.age_years or frame.patient_context.age_years
    if age is not None and not found:
        if age >= 65 and "cao tuoi" in folded:
            return True
        return age >= 18 and folded.startswith("nguoi lon")
    return False


def wants_route(p: Paragraph, frame: QueryFrame) -> bool:
    if not frame.route or not p.route:
        return True
    wanted = [w for w in fold(frame.route).split() if w not in {"duong", "dung"}]
    return all(w in fold(p.route) for w in wanted) if wanted else True


def select(paras: Sequence[Paragraph], frame: QueryFrame) -> list[Paragraph]:
    """The dose paragraphs for the frame's population/age/weight (and route, when given)."""
    labelled = [p for p in paras if not p.label_only and label_of(p)]
    routed = [p for p in labelled if wants_route(p, frame)] or labelled
    chosen = [p for p in routed if matches(scope_of(p), frame)]
    if not chosen and frame.population and not any(
            fold(word) in fold(scope_of(p)) for p in labelled for word in POPULATIONS):
        # the section prints no population labels at all: its doses are the general (adult) ones
        return [p for p in paras if not p.label_only]
    return chosen


def population_known(frame: QueryFrame) -> bool:
    ctx = frame.patient_context
    return any(v is not None for v in (frame.population, frame.age_years, frame.weight_kg, ctx.age_years,
                                       ctx.weight_kg))


#: Population words offered as quick replies, in the order a clinician expects them.
POPULATIONS = ("người lớn", "trẻ em", "trẻ sơ sinh", "người cao tuổi", "suy thận", "suy gan")


def quick_replies(paras: Sequence[Paragraph], limit: int = 4) -> list[str]:
    """The population words the section's labels print ("Người lớn", "Trẻ em" …), never invented ones."""
    labels = [fold(label) for p in paras if (label := label_of(p)) and not is_dose_note(label)]
    found = [word for word in POPULATIONS if any(fold(word) in label for label in labels)]
    return [word[0].upper() + word[1:] for word in found][:limit]


def is_dose_note(label: str) -> bool:
    return fold(label) in {"cach dung", "lieu dung", "lieu luong", "chu y", "luu y", "ghi chu"}
