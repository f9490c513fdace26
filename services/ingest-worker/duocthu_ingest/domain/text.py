"""Small text rules the whole pipeline agrees on (slugs, heading keys, PUA, case ratios)."""

from __future__ import annotations

import re

from duocthu_text.vietnamese import fold, nfc, normalize_whitespace

_NON_SLUG = re.compile(r"[^a-z0-9]+")
_HEADING_TRIM = re.compile(r"[\s:.;,–—-]+$")

PUA_RANGES = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))
REPLACEMENT_CHAR = "\ufffd"


def slugify(title: str) -> str:
    """``drug_id`` of a monograph title: the ASCII slug (DESIGN.md), e.g. "AMOXICILIN VÀ ACID CLAVULANIC"."""
    return _NON_SLUG.sub("_", fold(title)).strip("_")


def heading_key(text: str) -> str:
    """The lookup form of a printed heading: folded, single-spaced, trailing punctuation dropped."""
    return normalize_whitespace(fold(_HEADING_TRIM.sub("", nfc(text).strip())))


def is_pua(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in PUA_RANGES)


def count_pua(text: str) -> int:
    return sum(1 for ch in text if is_pua(ch))


def count_control(text: str) -> int:
    """C0/C1 control characters other than newline and tab (a glyph the font could not map)."""
    return sum(1 for ch in text if (ord(ch) < 32 and ch not in "\n\t") or 0x7F <= ord(ch) < 0xA0)


def lowercase_ratio(text: str) -> float:
    """Share of lowercase letters among the letters of ``text`` (0.0 when it has none)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for ch in letters if ch.islower()) / len(letters)


def letter_count(text: str) -> int:
    return sum(1 for ch in text if ch.isalpha())


def ws_normalize(text: str) -> str:
    """Whitespace-normalised NFC text: the form round-trip comparisons use."""
    return normalize_whitespace(nfc(text))
