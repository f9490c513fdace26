"""One representation of an answer: claims rendered as ``text [1][2]``.

The verifier renders the draft's claims itself and checks the rendered
string, so the string the user reads and the structure that was checked
cannot drift apart (seed 000, "Structured claims, not free prose").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duocthu_contracts.answer import Claim

_GROUP_RE = re.compile(r"((?:\s*\[\d+\])+)")
_INDEX_RE = re.compile(r"\[(\d+)\]")
_CONTENT_RE = re.compile(r"[^\W_]", re.UNICODE)


def render_claim(claim: Claim) -> str:
    markers = "".join(f"[{i}]" for i in claim.citations)
    return f"{claim.text.strip()} {markers}".rstrip()


def render(claims: list[Claim]) -> str:
    return "\n".join(render_claim(c) for c in claims)


@dataclass(frozen=True)
class Segment:
    """The text before a citation-marker group, bound to that group only."""

    text: str
    citations: tuple[int, ...]


def split_segments(answer: str) -> list[Segment]:
    """Split at every marker group; the trailing text (if any) is a segment with no citations."""
    parts = _GROUP_RE.split(answer)
    segments: list[Segment] = []
    for i in range(0, len(parts), 2):
        text = parts[i]
        markers = parts[i + 1] if i + 1 < len(parts) else ""
        indices = tuple(int(m) for m in _INDEX_RE.findall(markers))
        if text.strip() or indices:
            segments.append(Segment(text.strip(), indices))
    return segments


def has_content(text: str) -> bool:
    """Real content, not just punctuation or whitespace left between markers."""
    return bool(_CONTENT_RE.search(text))
