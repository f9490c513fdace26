"""Choosing the dose paragraphs a question asked for, by the labels the book prints.

A dose is only meaningful with its label, so the extractive answer keeps
whole labelled paragraphs and never mixes bands.  Each label is judged
against the patient facts (``bands``): the lines whose band the patient is
known to fall in are the answer, the special-state bands (renal, hepatic,
pregnancy, old age) first; when none is known to hold, the lines nothing
rules out are given if they are few, else the question goes back with the
labels the section actually prints as quick replies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.frame import QueryFrame
from duocthu_generation.domain import bands
from duocthu_generation.domain.paragraphs import Paragraph
from duocthu_text.vietnamese import fold, lexical_coverage

#: At most this many lines that nothing rules out are answered together before the question is sent back.
MAX_UNDECIDED = 3


@dataclass(frozen=True)
class Selection:
    """The chosen dose lines, or (when nothing could be chosen) the printed labels to ask with."""

    chosen: list[Paragraph]
    ask_with: list[str]


def label_of(p: Paragraph) -> str | None:
    """The population label a paragraph's dose belongs to (its own, else the scope's)."""
    return p.label or p.population


def scope_of(p: Paragraph) -> str:
    """What labels a paragraph's population: its own label when that names one, else the scope's and its own."""
    if p.label and not bands.parse(p.label).empty:
        return p.label
    return " ".join(x for x in (p.population, p.label) if x)


def wants_route(p: Paragraph, frame: QueryFrame) -> bool:
    if not frame.route or not p.route:
        return True
    wanted = [w for w in fold(frame.route).split() if w not in {"duong", "dung"}]
    printed = fold(p.route).split()
    return all(w in printed for w in wanted) if wanted else True


def _dose_lines(paras: Sequence[Paragraph]) -> list[Paragraph]:
    return [p for p in paras if not p.label_only and (label := label_of(p)) and not is_dose_note(label)]


#: Quick replies a draft may carry.
MAX_REPLIES = 4
#: A released table row (issue 19): "Bảng 1. … — <key header>: <key cell>; <header path>: <cell>; …".
_ROW_RE = re.compile(r"^Bảng\s+\d+\b.*? — (?P<header>[^:;]+): (?P<key>[^;]+)")


@dataclass(frozen=True)
class RenalRow:
    """A table row keyed on renal function, with the band its key cell prints."""

    paragraph: Paragraph
    header: str
    key: str
    band: bands.Range

    @property
    def reply(self) -> str:
        """The band as printed, for a quick reply: "eGFR (ml/phút/1,73 m²) 45 – 59"."""
        return f"{self.header} {self.key}"


def renal_rows(paras: Sequence[Paragraph]) -> list[RenalRow]:
    """The rows of released tables keyed on clearance/eGFR whose key cell prints a numeric band."""
    out: list[RenalRow] = []
    for p in paras:
        m = _ROW_RE.match(p.text)
        if m is None or not bands.parse(m["header"]).renal_word:
            continue
        band = bands.cell_band(m["key"])
        if band is not None:
            out.append(RenalRow(p, m["header"].strip(), m["key"].strip(), band))
    return out


def choose(paras: Sequence[Paragraph], frame: QueryFrame) -> Selection:
    """The dose paragraphs for the patient of the frame (and its route, when given).

    A table keyed on renal function answers first: with a clearance (or eGFR)
    value, the row(s) whose printed band contains it; with renal impairment but
    no value, the question goes back with the printed bands as quick replies.
    """
    facts = bands.facts_of(frame)
    rows = renal_rows(paras)
    if rows and facts.crcl is not None:
        hit = [r.paragraph for r in rows if r.band.contains(facts.crcl)]
        if hit:
            return Selection(hit, [])
    elif rows and facts.renal_impaired:
        replies = list(dict.fromkeys(r.reply for r in rows))
        if len(replies) > MAX_REPLIES:  # a patient with impaired function: the bands below normal (60 ml/min)
            replies = list(dict.fromkeys(r.reply for r in rows if r.band.low < bands.IMPAIRED_BELOW))
        return Selection([], replies[:MAX_REPLIES])
    labelled = _dose_lines(paras)
    routed = [p for p in labelled if wants_route(p, frame)] or labelled
    if facts.weight_kg is not None:
        routed = [p for p in routed if not bands.for_unknown_weight(p.text)]
    judged = [(p, bands.judge(scope_of(p), facts)) for p in routed if not bands.parse(scope_of(p)).empty]
    known = _for_condition([p for p, v in judged if v is bands.Verdict.YES], frame)
    if known:
        return Selection(sorted(known, key=lambda p: bands.parse(scope_of(p)).priority), [])
    undecided = _for_condition([p for p, v in judged if v is bands.Verdict.UNKNOWN], frame)
    labels = list(dict.fromkeys(scope_of(p) for p in undecided))
    if undecided and len(labels) <= MAX_UNDECIDED:
        return Selection(undecided, [])
    if not labelled or not any(not bands.parse(scope_of(p)).empty for p in labelled):
        # the section prints no population labels at all: its doses are the general (adult) ones
        return Selection([p for p in paras if not p.label_only], [])
    return Selection([], [label for label in labels if len(label) <= 60][:4])


#: Share of a condition's words a dose label must print to be that condition's line ("Người lớn (gút cấp)").
CONDITION_COVERAGE = 0.67


def _for_condition(lines: list[Paragraph], frame: QueryFrame) -> list[Paragraph]:
    """With a condition in the question, the lines labelled for it (when the book labels any), else all."""
    if not frame.condition:
        return lines
    named = [p for p in lines if lexical_coverage(frame.condition, scope_of(p)) >= CONDITION_COVERAGE]
    return named or lines


def select(paras: Sequence[Paragraph], frame: QueryFrame) -> list[Paragraph]:
    return choose(paras, frame).chosen


def population_known(frame: QueryFrame) -> bool:
    return bands.facts_of(frame).given


#: Population words offered as quick replies, in the order a clinician expects them.
POPULATIONS = ("người lớn", "trẻ em", "trẻ sơ sinh", "người cao tuổi", "suy thận", "suy gan")


def quick_replies(paras: Sequence[Paragraph], limit: int = 4) -> list[str]:
    """The population words the section's labels print ("Người lớn", "Trẻ em" …), never invented ones."""
    labels = [fold(label) for p in paras if (label := label_of(p)) and not is_dose_note(label)]
    found = [word for word in POPULATIONS if any(fold(word) in label for label in labels)]
    return [word[0].upper() + word[1:] for word in found][:limit]


def is_dose_note(label: str) -> bool:
    return fold(label) in {"cach dung", "lieu dung", "lieu luong", "chu y", "luu y", "ghi chu"}
