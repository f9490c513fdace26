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
from duocthu_text.vietnamese import condition_coverage, fold

#: At most this many lines that nothing rules out are answered together before the question is sent back.
MAX_UNDECIDED = 3


@dataclass(frozen=True)
class Selection:
    """The chosen dose lines, or (when nothing could be chosen) the printed labels to ask with."""

    chosen: list[Paragraph]
    ask_with: list[str]
    #: The chosen lines are the patient's own band(s), not lines nothing ruled out.
    known: bool = False


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
    known = _most_specific(_for_condition([p for p, v in judged if v is bands.Verdict.YES], frame), facts, frame)
    if known:
        return Selection(sorted(known, key=lambda p: bands.parse(scope_of(p)).priority), [], known=True)
    undecided = _for_condition([p for p, v in judged if v is bands.Verdict.UNKNOWN], frame)
    if facts.renal_impaired and facts.crcl is None:
        # renal impairment without a value: its bands are what is undecided, not the other populations
        undecided = [p for p in undecided if bands.parse(scope_of(p)).renal] or undecided
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
    return for_condition(lines, frame.condition) or lines


def for_condition(lines: Sequence[Paragraph], condition: str) -> list[Paragraph]:
    """The dose lines whose label names ``condition`` ("Người lớn (gút cấp)", "Diệt Helicobacter pylori")."""
    return [p for p in lines if condition_coverage(condition, scope_of(p)) >= CONDITION_COVERAGE]


#: A parenthesised qualifier with no number: a condition the line is for ("(gút cấp)"), not a band ("(Clcr 10 – 30 …)").
_QUALIFIER = re.compile(r"\(([^()\d]+)\)")


def qualified(p: Paragraph) -> bool:
    """A line the book prints for one condition only: its label carries a qualifier or names no population."""
    label = p.label or ""
    return bool(_QUALIFIER.search(label)) or (bool(label) and bands.parse(label).empty and not is_dose_note(label))


def _most_specific(lines: list[Paragraph], facts: bands.Facts, frame: QueryFrame) -> list[Paragraph]:
    """Among the lines the patient falls in, those that say most about this patient.

    A weight (or a child's age) was given and some matching lines print a weight (age) band: the lines without
    one are the general case the band refines ("Người lớn và trẻ em từ 12 tuổi" beside "Người lớn cân nặng dưới 50
    kg"). With no condition in the question, lines printed for one condition ("Người lớn (gút cấp)") give way
    to the general lines of the same population.
    """
    out = lines
    if facts.weight_kg is not None and any(bands.parse(scope_of(p)).weights for p in out):
        out = [p for p in out if bands.parse(scope_of(p)).weights or bands.parse(scope_of(p)).special]
    if facts.age_years is not None and facts.age_years < bands.ADULT_FROM_YEARS \
            and any(bands.parse(scope_of(p)).ages for p in out):
        out = [p for p in out if bands.parse(scope_of(p)).ages or bands.parse(scope_of(p)).weights
               or bands.parse(scope_of(p)).special]
    if not frame.condition:
        general = [p for p in out if not qualified(p)]
        if general:
            out = general
    return out


def select(paras: Sequence[Paragraph], frame: QueryFrame) -> list[Paragraph]:
    return choose(paras, frame).chosen


def population_known(frame: QueryFrame) -> bool:
    return bands.facts_of(frame).given


def condition_lines(paras: Sequence[Paragraph], frame: QueryFrame) -> list[Paragraph]:
    """With no patient facts but a condition: the dose lines labelled for it, when they are few enough to give
    together (each keeps its printed population label); else nothing and the population is asked."""
    if not frame.condition:
        return []
    lines = for_condition(_dose_lines(paras), frame.condition)
    routed = [p for p in lines if wants_route(p, frame)] or lines
    return routed if len({scope_of(p) for p in routed}) <= MAX_UNDECIDED else []


#: Population words offered as quick replies, in the order a clinician expects them.
POPULATIONS = ("người lớn", "trẻ em", "trẻ sơ sinh", "người cao tuổi", "suy thận", "suy gan")


def quick_replies(paras: Sequence[Paragraph], limit: int = 4) -> list[str]:
    """The population words the section's labels print ("Người lớn", "Trẻ em" …), never invented ones."""
    labels = [fold(label) for p in paras if (label := label_of(p)) and not is_dose_note(label)]
    found = [word for word in POPULATIONS if any(fold(word) in label for label in labels)]
    return [word[0].upper() + word[1:] for word in found][:limit]


def is_dose_note(label: str) -> bool:
    return fold(label) in {"cach dung", "lieu dung", "lieu luong", "chu y", "luu y", "ghi chu"}
