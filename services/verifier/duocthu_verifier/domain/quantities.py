"""Quantities as the book prints them: a number with its unit and its bound.

A bare number proves little: "15" occurs in ``15 mg/kg/lần`` and in
``15 phút``, and a claim that moves it from one to the other keeps every
digit.  So a quantity is read with the unit printed after it (``mg/kg/lần``,
``g/ngày``, ``ml/phút/1,73 m²``, ``°C``, ``lần/ngày``) and with the bound word
printed before it (``dưới``/``tối đa``/``không quá`` vs ``trên``/``từ``/``ít
nhất``), and a claim's quantity matches a source quantity only when value and
unit are identical and the bounds do not point opposite ways.

Numbers are still compared character for character — never parsed
(``1.500`` is 1500 under one reading and 1,5 under another; seed 000, Check
1).  The only normalisation is of the space and dash shape of a range
(``4 – 6``, ``4-6``), of spaces inside a unit (``° C``) and of "mỗi" for a slash
(``1 g mỗi lần`` is ``1 g/lần``), which never change a digit or a unit.  Units come from a closed list so that the word after a unit-less
number ("typ 2 ở …") is not mistaken for a unit; a code glued to letters
(``CYP2C9``, ``HbA1c``, ``N02BE01``) is one quantity whose value is the code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Bound = Literal["upper", "lower"]

#: Units of measure and count the formulary prints after a number (longest first within the alternation).
UNIT_WORDS: tuple[str, ...] = (
    "microgam", "nanogam", "miligam", "mcg", "µg", "μg", "ng", "mg", "kg", "g", "gam",
    "mmol", "µmol", "μmol", "mol", "mEq", "meq", "mosm", "mOsm",
    "ml", "mL", "dl", "dL", "lít", "l", "L",
    "đvqt", "UI", "IU", "đơn vị", "triệu đơn vị",
    "%", "độ C", "mmHg",
    "giờ", "phút", "giây", "ngày", "tuần", "tháng", "năm", "tuổi",
    "lần", "viên", "gói", "ống", "lọ", "liều", "giọt", "nhát xịt", "nhát", "xịt", "hít", "miếng", "thìa",
    "cm", "mm", "m²", "m2", "m", "kcal", "cal",
)
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(UNIT_WORDS, key=len, reverse=True))
_NUM = r"\d+(?:[.,]\d+)*"
_DASH = r"\s*[–—−-]\s*"
#: A unit word ends where a letter would continue it ("g" in "giờ" is not grams).
_UNIT = rf"(?:°\s?C|{_UNIT_ALT})(?![^\W\d_])"
_UNIT_PART = rf"(?:{_NUM}\s?)?{_UNIT}"
_UNIT_CHAIN = rf"(?:\s?{_UNIT}|/\s?{_UNIT_PART})(?:\s?/\s?{_UNIT_PART})*"
_CODE = r"[^\W_]*(?:[^\W\d_]\d|\d[^\W\d_])[^\W_]*"
QUANTITY_RE = re.compile(
    rf"(?<![^\W_])(?:(?P<value>{_NUM}(?:/{_NUM})?(?:{_DASH}{_NUM}(?:/{_NUM})?)*)(?P<unit>{_UNIT_CHAIN})?"
    rf"(?:\s+mỗi\s+(?P<per>{_UNIT}))?"
    rf"|(?P<code>{_CODE}))(?![^\W_])"
)
_SPACE_RE = re.compile(r"\s+")
_DASH_RE = re.compile(_DASH)

#: Words that bound a quantity from above or below when printed right before it.
UPPER_WORDS = ("không vượt quá", "không quá", "tối đa", "dưới", "nhỏ hơn", "thấp hơn", "ít hơn", "<", "≤")
LOWER_WORDS = ("ít nhất", "tối thiểu", "lớn hơn", "cao hơn", "nhiều hơn", "trên", "từ", "quá", ">", "≥")
_BOUND_WINDOW = 16


@dataclass(frozen=True)
class Quantity:
    """``value`` exactly as printed (range dashes normalised), ``unit`` without inner spaces."""

    value: str
    unit: str
    bound: Bound | None = None

    def matches(self, other: Quantity) -> bool:
        """Same value and unit; bounds may be absent on either side but never opposite."""
        if (self.value, self.unit) != (other.value, other.unit):
            return False
        return self.bound is None or other.bound is None or self.bound == other.bound

    def __str__(self) -> str:
        return f"{self.value} {self.unit}".strip()


def _bound_before(text: str, start: int) -> Bound | None:
    head = text[max(0, start - _BOUND_WINDOW):start].lower().rstrip()
    for word in UPPER_WORDS:  # "không quá" is checked before "quá"
        if head.endswith(word) and _boundary_before(head, len(head) - len(word)):
            return "upper"
    for word in LOWER_WORDS:
        if head.endswith(word) and _boundary_before(head, len(head) - len(word)):
            return "lower"
    return None


def _boundary_before(text: str, index: int) -> bool:
    return index <= 0 or not text[index - 1].isalnum()


def quantities(text: str) -> list[Quantity]:
    """Every quantity of ``text`` in reading order."""
    out: list[Quantity] = []
    for m in QUANTITY_RE.finditer(text):
        if m.group("code"):
            out.append(Quantity(m.group("code"), ""))
            continue
        value = _DASH_RE.sub(" – ", m.group("value"))
        unit = _SPACE_RE.sub("", m.group("unit") or "")
        if m.group("per"):  # "1 g mỗi lần" is how prose says "1 g/lần"
            unit = f"{unit}/{_SPACE_RE.sub('', m.group('per'))}"
        out.append(Quantity(value, unit, _bound_before(text, m.start())))
    return out


def bind_in_order(claim: Sequence[Quantity], labels: Sequence[Quantity], body: Sequence[Quantity]) -> bool:
    """Can every claim quantity be matched, order kept, to the passage's label quantities or body quantities?

    The labels in force (a population band such as "trên 33 kg đến 50 kg")
    and the passage body each keep their own order; a claim may mention the
    label before or after the body, but swapping two values inside either
    sequence, or pairing a value with another unit, never matches.  Greedy
    earliest matching decides subsequence membership exactly; a quantity that
    fits the label is taken there first, which never consumes body positions.

    A number without a unit ("typ 2", a code such as "CYP3A4") names a kind,
    not an amount: it must occur (as often) in the passage, in any order — a
    rewording may move "typ 2" to the end, and swapping it with a dose changes
    a unit anyway.
    """
    free = [*labels, *body]
    for q in (q for q in claim if not q.unit):
        at = next((i for i, s in enumerate(free) if not s.unit and q.matches(s)), None)
        if at is None:
            return False
        free.pop(at)
    lp = bp = 0
    for q in (q for q in claim if q.unit):
        at = next((i for i in range(lp, len(labels)) if q.matches(labels[i])), None)
        if at is not None:
            lp = at + 1
            continue
        at = next((i for i in range(bp, len(body)) if q.matches(body[i])), None)
        if at is None:
            return False
        bp = at + 1
    return True
