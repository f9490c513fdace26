"""Population bands a dose label prints, read against the patient facts the question gave.

A dose line belongs to its printed population ("Người lớn cân nặng dưới 50 kg",
"Trẻ em từ 1 đến 5 tuổi", "Suy thận (Clcr 10 – 50 ml/phút)", "Người cao tuổi").
Answering a patient means answering with the band(s) that patient falls in and
never leading with another, so every label is read into its constraints —
age, weight, renal function, hepatic state, pregnancy, breastfeeding and the
population words — and each constraint is checked against the facts:

* ``YES``: every constraint the label states is known to hold;
* ``NO``: one constraint is known to fail (a child against "Người lớn …", 15 kg
  against "từ 50 kg", a patient with no renal impairment against a renal band);
* ``UNKNOWN``: nothing fails but something the label needs was not given
  (the caller asks, offering the book's own labels).

Pure: numbers and words in, verdicts out. Nothing is inferred that the user
did not write (a weight does not make an age).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from duocthu_contracts.frame import QueryFrame
from duocthu_text.vietnamese import fold

_NUM = r"(\d+(?:,\d+)?)"
_AGE_UNIT = r"(tuoi|thang|tuan|ngay)"
_RANGE_SEP = r"\s*(?:den|-|–|—)\s*"
#: Age in years from which the book's "người lớn" applies when a label gives no band of its own.
ADULT_FROM_YEARS = 18.0
#: Age in years from which "người cao tuổi" applies.
ELDERLY_FROM_YEARS = 65.0
#: Clearance (ml/min) below which renal function counts as impaired (as ``facts_of`` reads a value).
IMPAIRED_BELOW = 60.0
#: A newborn ("trẻ sơ sinh") is under one month old.
NEONATE_UNTIL_YEARS = 1 / 12


class Verdict(StrEnum):
    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Range:
    """A numeric band with its printed bounds ("từ" includes, "trên"/"dưới" exclude)."""

    low: float = 0.0
    high: float = math.inf
    low_inclusive: bool = True
    high_inclusive: bool = False

    def contains(self, value: float) -> bool:
        above = value >= self.low if self.low_inclusive else value > self.low
        below = value <= self.high if self.high_inclusive else value < self.high
        return above and below


@dataclass(frozen=True)
class Facts:
    """What the question (or its patient context, or the conversation) says about the patient."""

    age_years: float | None = None
    weight_kg: float | None = None
    crcl: float | None = None  # ml/min; eGFR is read as the same scale when only it is given
    renal_impaired: bool | None = None
    hepatic_impaired: bool | None = None
    pregnant: bool | None = None
    breastfeeding: bool | None = None
    #: population words the user used ("nguoi lon", "tre em", "nguoi cao tuoi"), folded
    groups: frozenset[str] = frozenset()
    #: a table band the user picked from a quick reply: (key header, key cell) as printed
    band: tuple[str, str] | None = None

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.age_years, self.weight_kg, self.crcl, self.renal_impaired,
                                           self.hepatic_impaired, self.pregnant, self.breastfeeding, self.band)) \
            or bool(self.groups)


@dataclass(frozen=True)
class LabelBands:
    """The constraints one printed label states."""

    ages: tuple[Range, ...] = ()
    weights: tuple[Range, ...] = ()
    renal: tuple[Range, ...] = ()
    renal_word: bool = False
    hepatic: bool = False
    pregnancy: bool = False
    breastfeeding: bool = False
    groups: frozenset[str] = field(default_factory=frozenset)

    @property
    def special(self) -> bool:
        """A band for a special state (renal, hepatic, pregnancy, breastfeeding, old age) rather than a size."""
        return self.renal_word or bool(self.renal) or self.hepatic or self.pregnancy or self.breastfeeding \
            or "nguoi cao tuoi" in self.groups

    @property
    def priority(self) -> int:
        """Lead order among matching bands: the patient's special state first, then old age, then the rest."""
        if self.renal_word or self.renal or self.hepatic or self.pregnancy or self.breastfeeding:
            return 0
        return 1 if "nguoi cao tuoi" in self.groups else 2

    @property
    def empty(self) -> bool:
        return not (self.ages or self.weights or self.special or self.groups)


ADULT, CHILD, NEONATE, ELDERLY = "nguoi lon", "tre em", "tre so sinh", "nguoi cao tuoi"
_GROUP_WORDS = {
    ADULT: (r"nguoi lon",),
    CHILD: (r"tre em", r"tre nho", r"tre (?=\d|tu |duoi |tren |can nang)", r"thieu nien", r"nhu nhi"),
    NEONATE: (r"tre so sinh", r"so sinh"),
    ELDERLY: (r"nguoi cao tuoi", r"nguoi gia"),
}


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def _years(value: float, unit: str | None) -> float:
    if unit == "thang":
        return value / 12
    if unit == "tuan":
        return value / 52
    if unit == "ngay":
        return value / 365
    return value


def _ranges(text: str, unit_re: str, convert: Callable[[float, str | None], float]
            ) -> list[tuple[Range, tuple[int, int]]]:
    out: list[tuple[Range, tuple[int, int]]] = []
    taken: list[tuple[int, int]] = []
    for m in re.finditer(rf"(tu|tren)?\s*{_NUM}\s*{unit_re}?{_RANGE_SEP}(duoi\s+)?{_NUM}\s*{unit_re}", text):
        high_unit = m.group(6)
        low_unit = m.group(3) or high_unit
        low, high = convert(_num(m.group(2)), low_unit), convert(_num(m.group(5)), high_unit)
        out.append((Range(low, high, low_inclusive=m.group(1) != "tren", high_inclusive=not m.group(4)), m.span()))
        taken.append(m.span())
    for m in re.finditer(rf"(?<!tu )(?<!tren )(?<!duoi )(?<!den )(?<![\d,]){_NUM}\s*{unit_re}\s+tro len", text):
        if not any(a <= m.start() < b for a, b in taken):  # "Clcr 30 ml/phút trở lên": from 30 on
            out.append((Range(convert(_num(m.group(1)), m.group(2))), m.span()))
            taken.append(m.span())
    for m in re.finditer(rf"(tu|tren|duoi|den)\s+{_NUM}\s*{unit_re}(\s+tro len)?", text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        value = convert(_num(m.group(2)), m.group(3))
        word = m.group(1)
        if word == "duoi":
            out.append((Range(0.0, value), m.span()))
        elif word == "den":
            out.append((Range(0.0, value, high_inclusive=True), m.span()))
        else:
            out.append((Range(value, low_inclusive=word == "tu"), m.span()))
    return out


@functools.lru_cache(maxsize=4096)
def parse(label: str) -> LabelBands:
    """The constraints a label prints (folded, so diacritics and case never matter).

    Cached (bounded): choosing a dose line parses the same few labels dozens of times per turn (issue 20), and
    the result is immutable.
    """
    text = fold(label)
    # gestational age ("32 tuần tuổi thai") is not the child's age
    text = re.sub(rf"{_NUM}\s*tuan tuoi thai( hieu chinh)?( tro len)?", " ", text)
    renal_ranges: list[Range] = []
    renal_word = bool(re.search(r"suy than|clcr|crcl|egfr|do thanh thai|mlct|loc cau than", text))
    if renal_word:
        for r, _ in _ranges(text, r"(ml/phut|ml/ph)", lambda v, _u: v):
            renal_ranges.append(r)
    ages = [r for r, _ in _ranges(text, _AGE_UNIT, _years)]
    weights = [r for r, _ in _ranges(text, r"(kg)", lambda v, _u: v)]
    groups = {name for name, patterns in _GROUP_WORDS.items() if any(re.search(p, text) for p in patterns)}
    if NEONATE in groups and not re.search(r"tre em|tre nho", text):
        groups.discard(CHILD)
    return LabelBands(
        ages=tuple(ages), weights=tuple(weights), renal=tuple(renal_ranges), renal_word=renal_word,
        hepatic=bool(re.search(r"suy gan|benh gan|child[- ]?pugh", text)),
        pregnancy=bool(re.search(r"mang thai|co thai|thai ky|phu nu co thai", text)) and "tuoi thai" not in text,
        breastfeeding=bool(re.search(r"cho con bu", text)), groups=frozenset(groups))


_CELL_BAND = re.compile(rf"^(?:(>|<|≥|≤|tren|duoi|tu)\s*{_NUM}|{_NUM}{_RANGE_SEP}{_NUM})$")


def cell_band(cell: str) -> Range | None:
    """The band a table's key cell prints ("45 – 59", "< 30", "≥ 90", "trên 20", "dưới 10"), or None.

    A released table row (issue 19) is keyed on its first cell; a row is selected
    for a patient when this band contains the value the question gave.
    """
    m = _CELL_BAND.match(fold(cell).strip())
    if m is None:
        return None
    if m.group(3) is not None:
        return Range(_num(m.group(3)), _num(m.group(4)), high_inclusive=True)
    op, value = m.group(1), _num(m.group(2))
    if op in (">", "tren"):
        return Range(value, low_inclusive=False)
    if op in ("≥", "tu"):
        return Range(value)
    if op in ("<", "duoi"):
        return Range(0.0, value)
    return Range(0.0, value, high_inclusive=True)


def facts_of(frame: QueryFrame) -> Facts:
    """The patient facts of a frame: its own fields first, then its patient context."""
    ctx = frame.patient_context
    crcl = ctx.crcl_ml_min if ctx.crcl_ml_min is not None else ctx.egfr
    renal: bool | None = True if ctx.ckd else None
    if crcl is not None:
        renal = True if crcl < IMPAIRED_BELOW else renal
    groups: set[str] = set()
    hepatic = ctx.hepatic_impairment
    if frame.population:
        folded = fold(frame.population)
        if renal is None and re.search(r"suy than|clcr|crcl|do thanh thai", folded):
            renal = True  # the renal lines were asked for ("Suy thận", "theo độ thanh thải creatinin")
        if hepatic is None and "suy gan" in folded:
            hepatic = True
        groups |= {name for name, patterns in _GROUP_WORDS.items() if any(re.search(p, folded) for p in patterns)}
        if "tre" in folded.split() and not groups:
            groups.add(CHILD)
    return Facts(age_years=frame.age_years if frame.age_years is not None else ctx.age_years,
                 weight_kg=frame.weight_kg if frame.weight_kg is not None else ctx.weight_kg,
                 crcl=crcl, renal_impaired=renal, hepatic_impaired=hepatic,
                 pregnant=ctx.pregnant, breastfeeding=ctx.breastfeeding, groups=frozenset(groups),
                 band=(ctx.band.header, ctx.band.band) if ctx.band is not None else None)


def _all(verdicts: Iterable[Verdict]) -> Verdict:
    out = Verdict.YES
    for v in verdicts:
        if v is Verdict.NO:
            return Verdict.NO
        if v is Verdict.UNKNOWN:
            out = Verdict.UNKNOWN
    return out


def _in(ranges: tuple[Range, ...], value: float | None) -> Verdict:
    if not ranges:
        return Verdict.YES
    if value is None:
        return Verdict.UNKNOWN
    return Verdict.YES if any(r.contains(value) for r in ranges) else Verdict.NO


#: The ages a population word implies when no age was given.
_IMPLIED_AGES = {ADULT: Range(ADULT_FROM_YEARS), CHILD: Range(0.0, ADULT_FROM_YEARS),
                 ELDERLY: Range(ELDERLY_FROM_YEARS), NEONATE: Range(0.0, NEONATE_UNTIL_YEARS)}


def _ages(label: LabelBands, facts: Facts) -> Verdict:
    """A printed age band against the age, or (none given) against the ages the user's population word implies."""
    if not label.ages or facts.age_years is not None:
        return _in(label.ages, facts.age_years)
    if ELDERLY in label.groups and ELDERLY in facts.groups:
        return Verdict.YES  # "Người cao tuổi (trên 65 tuổi)" is the elderly the user named

    implied = [_IMPLIED_AGES[g] for g in facts.groups]
    if not implied:
        return Verdict.UNKNOWN
    verdicts = []
    for span in implied:
        if any(r.low <= span.low and r.high >= span.high and (r.low_inclusive or r.low < span.low)
               for r in label.ages):
            verdicts.append(Verdict.YES)
        elif all(r.high <= span.low or r.low >= span.high for r in label.ages):
            verdicts.append(Verdict.NO)
        else:
            verdicts.append(Verdict.UNKNOWN)
    return Verdict.YES if Verdict.YES in verdicts else Verdict.UNKNOWN if Verdict.UNKNOWN in verdicts \
        else Verdict.NO


def _group_by_age(group: str, age: float) -> bool:
    if group == ADULT:
        return age >= ADULT_FROM_YEARS
    if group == CHILD:
        return age < ADULT_FROM_YEARS
    if group == NEONATE:
        return age < NEONATE_UNTIL_YEARS
    return age >= ELDERLY_FROM_YEARS


def _groups(label: LabelBands, facts: Facts) -> Verdict:
    """The population words: the label's groups (any of them) against the user's age or words."""
    named = label.groups - {ELDERLY}
    if ELDERLY in label.groups:
        if facts.age_years is not None:
            return Verdict.YES if facts.age_years >= ELDERLY_FROM_YEARS else Verdict.NO
        return Verdict.YES if ELDERLY in facts.groups else Verdict.NO if facts.groups else Verdict.UNKNOWN
    if not named:
        return Verdict.YES
    if facts.age_years is not None:
        if label.ages:
            return Verdict.YES  # the printed age band decides, checked separately
        return Verdict.YES if any(_group_by_age(g, facts.age_years) for g in named) else Verdict.NO
    asked = facts.groups - {ELDERLY} or ({ADULT} if ELDERLY in facts.groups else set())
    if asked:
        return Verdict.YES if asked & named else Verdict.NO
    return Verdict.UNKNOWN


def _flag(printed: bool, fact: bool | None) -> Verdict:
    """A special state the label is for (renal, hepatic, pregnancy …): only a patient in that state matches."""
    if not printed:
        return Verdict.YES
    return Verdict.YES if fact else Verdict.NO


def judge(label: str, facts: Facts) -> Verdict:
    """Does the patient of ``facts`` fall in the population ``label`` prints?"""
    bands = parse(label)
    renal = Verdict.YES
    if bands.renal or bands.renal_word:
        if facts.crcl is not None and bands.renal:
            renal = _in(bands.renal, facts.crcl)
        elif facts.renal_impaired:
            renal = Verdict.UNKNOWN if bands.renal else Verdict.YES
        else:
            renal = Verdict.NO
    return _all((
        _groups(bands, facts), _ages(bands, facts),
        _in(bands.weights, facts.weight_kg), renal, _flag(bands.hepatic, facts.hepatic_impaired),
        _flag(bands.pregnancy, facts.pregnant), _flag(bands.breastfeeding, facts.breastfeeding)))


def for_unknown_weight(text: str) -> bool:
    """A line printed only for when the weight is not known ("Khi không biết cân nặng, …")."""
    return "khi khong biet can nang" in fold(text)
