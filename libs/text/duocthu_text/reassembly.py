"""Reassembling a section from its chunks' ``source_text`` (the reassembly gate, seed 003 §18.5).

Consecutive parts overlap by whole atoms, so part k+1 starts with a suffix
of part k: the longest such overlap is cut before appending.  Parts that do
not overlap are joined by a single space, which is why the comparison is
made on whitespace-normalised text.  Carried context labels live only in
``text``, never in ``source_text``, so they cannot creep into the result.
"""

from __future__ import annotations

from collections.abc import Sequence


def longest_overlap(left: str, right: str) -> int:
    """Length of the longest suffix of ``left`` that is a prefix of ``right`` (KMP failure function)."""
    limit = min(len(left), len(right))
    if limit == 0:
        return 0
    probe = right[:limit] + "\x00" + left[-limit:]
    fail = [0] * len(probe)
    for i in range(1, len(probe)):
        k = fail[i - 1]
        while k and probe[i] != probe[k]:
            k = fail[k - 1]
        if probe[i] == probe[k]:
            k += 1
        fail[i] = k
    return fail[-1]


def reassemble(parts: Sequence[str]) -> str:
    if not parts:
        return ""
    text = parts[0]
    for part in parts[1:]:
        cut = longest_overlap(text, part)
        text += part[cut:] if cut else " " + part
    return text
