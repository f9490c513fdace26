"""Whitespace/Unicode normalisation for verbatim comparisons."""

from __future__ import annotations

import re

from duocthu_text.vietnamese import nfc, normalize_whitespace

_MARKER_RE = re.compile(r"\s*\[\d+\]")


def normalized(text: str) -> str:
    """NFC and single spaces: the only differences a verbatim check forgives."""
    return normalize_whitespace(nfc(text))


def lowered(text: str) -> str:
    return normalized(text).lower()


def strip_markers(text: str) -> str:
    return _MARKER_RE.sub("", text)
