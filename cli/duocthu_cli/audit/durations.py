"""Parsing ``--since 24h`` style durations."""

from __future__ import annotations

import re
from datetime import timedelta

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")


def parse_duration(text: str) -> timedelta:
    match = _RE.match(text)
    if not match:
        raise ValueError(f"invalid duration {text!r}: use a number and a unit s/m/h/d/w, e.g. 24h")
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])
