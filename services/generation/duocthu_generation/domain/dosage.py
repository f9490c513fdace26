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
from enum import StrEnum

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
    #: The chosen lines are rows of a released table (both extractors agreed), picked by the patient's value.
    from_rows: bool = False
    #: ``ask_with`` are a released table's bands, keyed on this header: ask for the value, not the population.
    band_header: str | None = None


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
_ROW_RE = re.compile(r"^(?P<caption>Bảng\s+\d+\b.*?) — (?P<header>[^:;]+): (?P<key>[^;]+)")


class KeyKind(StrEnum):
    """What a released table's rows are keyed on (its first column's header)."""

    RENAL = "renal"    # "Độ thanh thải creatinin (ml/phút)", "eGFR (ml/phút/1,73 m²)"
    WEIGHT = "weight"  # "Cân nặng (kg)"
    AGE = "age"        # "Tuổi (năm)", "Tuổi (tháng)"


def key_kind(header: str) -> KeyKind | None:
    folded = fold(header)
    if bands.parse(header).renal_word:
        return KeyKind.RENAL
    if "can nang" in folded or re.search(r"\(kg\)", folded):
        return KeyKind.WEIGHT
    if re.search(r"\btuoi\b", folded):
        return KeyKind.AGE
    return None


def _in_years(band: bands.Range, header: str) -> bands.Range:
    """An age band in the unit its header prints (years unless "tháng", "tuần" or "ngày" is named)."""
    unit = re.search(r"\b(thang|tuan|ngay)\b", fold(header))
    per_year = {"thang": 12, "tuan": 52, "ngay": 365}[unit.group(1)] if unit else 1
    return bands.Range(band.low / per_year, band.high / per_year, band.low_inclusive, band.high_inclusive)


def _same(a: str, b: str) -> bool:
    """Printed texts equal up to case, diacritics, spacing and the dash typed (a reply typed by hand)."""
    def norm(text: str) -> str:
        return re.sub(r"\s+", "", fold(text).replace("—", "-").replace("–", "-"))
    return norm(a) == norm(b)


@dataclass(frozen=True)
class KeyedRow:
    """A released table row keyed on renal function, weight or age, with the band its key cell prints."""

    paragraph: Paragraph
    caption: str
    header: str
    key: str
    kind: KeyKind
    #: weight in kg, age in years, clearance in ml/min; None for a key cell that prints no band ("Thẩm tách máu")
    band: bands.Range | None

    def holds(self, value: float | None) -> bool:
        return value is not None and self.band is not None and self.band.contains(value)

    @property
    def reply(self) -> str:
        """The band as printed, for a quick reply: "eGFR (ml/phút/1,73 m²) 45 – 59", "Cân nặng (kg) 10 – 14,9"."""
        return f"{self.header} {self.key}"

    def picked(self, band: tuple[str, str]) -> bool:
        """Is this the row of a band the user picked (a quick reply), header and key cell as printed?"""
        return _same(self.header, band[0]) and _same(self.key, band[1])


#: Kept for the callers of issue 19's first cut: the rows keyed on renal function.
RenalRow = KeyedRow


def keyed_rows(paras: Sequence[Paragraph]) -> list[KeyedRow]:
    """The rows of released tables keyed on clearance/eGFR, weight or age, each with the band its key cell prints.

    A row whose key prints no band ("Thẩm tách máu", "< 20 (không thẩm tách)") is never selected by a value, but it
    is one of the table's rows to offer when the question goes back (and the reply picks it by its printed key).
    """
    out: list[KeyedRow] = []
    for p in paras:
        m = _ROW_RE.match(p.text)
        if m is None or (kind := key_kind(m["header"])) is None:
            continue
        band = bands.cell_band(m["key"])
        if band is not None and kind is KeyKind.AGE:
            band = _in_years(band, m["header"])
        out.append(KeyedRow(p, m["caption"], m["header"].strip(), m["key"].strip(), kind, band))
    return out


def renal_rows(paras: Sequence[Paragraph]) -> list[KeyedRow]:
    """The rows of released tables keyed on clearance/eGFR whose key cell prints a numeric band."""
    return [r for r in keyed_rows(paras) if r.kind is KeyKind.RENAL and r.band is not None]


#: The clarifying question that asks for the band a table is keyed on ends with this.
_BAND_QUESTION_END = " của người bệnh ở mức nào?"


def band_question(header: str) -> str:
    """Asking for the value a table is keyed on, by its header as printed: "Cân nặng (kg) của người bệnh ở mức nào?"."""
    return f"{header}{_BAND_QUESTION_END}"


def asks_for_band(question: str) -> bool:
    return question.endswith(_BAND_QUESTION_END)


def _special(facts: bands.Facts) -> bool:
    """A special state the patient is in: its own lines (or renal rows) answer, never a size/age band's row."""
    return facts.crcl is not None or bool(facts.renal_impaired) or bool(facts.hepatic_impaired) \
        or bool(facts.pregnant) or bool(facts.breastfeeding)


def _asking(rows: Sequence[KeyedRow], below: float | None = None) -> Selection:
    """Ask with every row of the table as printed, or (too many) with those below normal function; a table whose
    rows still do not fit the quick replies is not asked with a part of them (the turn goes on as without rows)."""
    replies = list(dict.fromkeys(r.reply for r in rows))
    if len(replies) > MAX_REPLIES and below is not None:  # impaired function: the bands below normal (60 ml/min)
        replies = list(dict.fromkeys(r.reply for r in rows if r.band is None or r.band.low < below))
    if len(replies) > MAX_REPLIES:
        return Selection([], replies[:MAX_REPLIES])
    return Selection([], replies, band_header=rows[0].header)


def choose(paras: Sequence[Paragraph], frame: QueryFrame) -> Selection:
    """The dose paragraphs for the patient of the frame (and its route, when given).

    A band the user picked from our quick replies selects that row, as printed.
    A table keyed on renal function answers first: with a clearance (or eGFR)
    value, the row(s) whose printed band contains it; with renal impairment but
    no value, the question goes back with the printed bands as quick replies.
    A table keyed on weight or age answers a patient in no special state with
    the row whose band holds the weight (age) given, unless its caption names
    another population; when the text holds no line of the patient's own and
    the weight (age) is missing, the question goes back with those bands.
    """
    facts = bands.facts_of(frame)
    rows = keyed_rows(paras)
    if facts.band is not None and (picked := [r.paragraph for r in rows if r.picked(facts.band)]):
        return Selection(picked, [], known=True, from_rows=True)
    renal = [r for r in rows if r.kind is KeyKind.RENAL]
    if any(r.band is not None for r in renal) and facts.crcl is not None:
        hit = [r.paragraph for r in renal if r.holds(facts.crcl)]
        if hit:
            return Selection(hit, [], known=True, from_rows=True)
    elif any(r.band is not None for r in renal) and facts.renal_impaired:
        return _asking(renal, below=bands.IMPAIRED_BELOW)
    sized = [r for r in rows if r.kind is not KeyKind.RENAL and not _special(facts)
             and bands.judge(r.caption, facts) is not bands.Verdict.NO]
    hit = [r.paragraph for r in sized if r.holds(_value_of(r, facts))]
    if hit:
        return Selection(hit, [], known=True, from_rows=True)
    # a table's rows answer a question about its key only: as dose lines they would lead an adult's answer with
    # every eGFR band (the rows' header reads as a population label)
    row_paras = {id(r.paragraph) for r in rows}
    text = _from_text([p for p in paras if id(p) not in row_paras], frame, facts)
    if not text.known and facts.band is None:
        unanswered = [r for r in sized if _value_of(r, facts) is None]
        for kind in (KeyKind.WEIGHT, KeyKind.AGE):
            keyed = [r for r in unanswered if r.kind is kind]
            if any(r.band is not None for r in keyed) and len({r.reply for r in keyed}) <= MAX_REPLIES:
                return _asking(keyed)
    return text


def _value_of(row: KeyedRow, facts: bands.Facts) -> float | None:
    return facts.weight_kg if row.kind is KeyKind.WEIGHT else facts.age_years


def _from_text(paras: Sequence[Paragraph], frame: QueryFrame, facts: bands.Facts) -> Selection:
    """The labelled dose lines of the section's text (tables' rows left out) for the patient of the frame."""
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
