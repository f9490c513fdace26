"""Redacting patient-context fields of stored audit messages (pure part).

The audit stream is the bus, so it holds what users typed, including
patient facts (age, weight, pregnancy, labs, current medicines).  Redaction
keeps the turn explainable — decision, reason, evidence, citations, timings
survive — while erasing the structured patient context and, optionally, the
free-text question itself.
"""

from __future__ import annotations

import copy
from typing import Any

REDACTED = "[đã ẩn]"
_PATIENT_KEYS = frozenset({"patient_context"})
_FRAME_PATIENT_FIELDS = ("age_years", "weight_kg", "population")
_QUERY_KEYS = frozenset({"query", "standalone_query"})


def _walk(node: Any, include_query: bool) -> tuple[Any, bool]:
    changed = False
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _PATIENT_KEYS and isinstance(value, dict):
                out[key] = {}
                changed = changed or bool(value)
            elif include_query and key in _QUERY_KEYS and isinstance(value, str) and value:
                out[key] = REDACTED
                changed = True
            else:
                out[key], sub = _walk(value, include_query)
                changed = changed or sub
        if include_query and "turn_type" in out and "standalone_query" in out:
            for field in _FRAME_PATIENT_FIELDS:
                if out.get(field) is not None:
                    out[field] = None
                    changed = True
        return out, changed
    if isinstance(node, list):
        items = [_walk(item, include_query) for item in node]
        return [i for i, _ in items], any(c for _, c in items)
    return node, False


def redact(document: dict[str, Any], *, include_query: bool = False) -> tuple[dict[str, Any], bool]:
    """A copy of ``document`` with every ``patient_context`` emptied (and the query text if asked)."""
    redacted, changed = _walk(copy.deepcopy(document), include_query)
    if changed:
        redacted["redacted"] = {"patient_context": True, "query": include_query}
    return redacted, changed
