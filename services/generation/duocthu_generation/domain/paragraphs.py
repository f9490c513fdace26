"""Reading evidence text back into labelled paragraphs and sentences.

Evidence ``text`` is a section slice whose paragraphs are separated by
newlines; a continuation chunk starts with the population/route labels it
carries (``context_labels``).  A paragraph may start with its own short label
("Trẻ em từ 1 đến 5 tuổi: …"); a label-only paragraph ("Đường uống:") scopes
the paragraphs after it.  Every piece returned here is a verbatim substring
of the evidence, so an extractive claim is grounded by construction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.evidence import Evidence

LABEL_MAX_CHARS = 80
LABEL_MAX_WORDS = 16
_ROUTE_RE = re.compile(
    r"^(đường|tiêm|truyền|uống|đặt|dùng ngoài|bôi|nhỏ|khí dung|hít|xịt|ngậm|thụt)\b", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-ỸĐ])")


@dataclass(frozen=True)
class Paragraph:
    evidence_index: int  # 1-based, as cited
    text: str  # verbatim
    label: str | None  # the paragraph's own label, without the colon
    route: str | None  # the route label in force (label-only paragraph or carried)
    population: str | None  # the population label in force from a label-only paragraph

    @property
    def label_only(self) -> bool:
        return self.label is not None and self.text.rstrip().endswith(":") and \
            self.text.rstrip()[:-1].strip() == self.label


def own_label(paragraph: str) -> str | None:
    head, sep, _ = paragraph.partition(":")
    head = head.strip()
    if not sep or not head or len(head) > LABEL_MAX_CHARS or len(head.split()) > LABEL_MAX_WORDS:
        return None
    return head


def is_route(label: str) -> bool:
    return bool(_ROUTE_RE.match(label))


def paragraphs(evidence: Sequence[Evidence]) -> list[Paragraph]:
    """Labelled paragraphs of the evidence blocks in order; label scopes run across a section's parts."""
    out: list[Paragraph] = []
    route: str | None = None
    population: str | None = None
    previous: tuple[str, str] | None = None
    for index, block in enumerate(evidence, start=1):
        if (block.drug_id, block.section_key) != previous:
            route = population = None
            previous = (block.drug_id, block.section_key)
        text = block.text
        carried = " ".join(block.context_labels)
        if carried and text.startswith(carried):
            text = text[len(carried):].lstrip()
            for lbl in block.context_labels:
                name = lbl.rstrip(":").strip()
                if is_route(name):
                    route, population = name, None
                else:
                    population = name
        for raw in text.split("\n"):
            para = raw.strip()
            if not para:
                continue
            label = own_label(para)
            item = Paragraph(index, para, label, route, population)
            if item.label_only and label is not None:
                if is_route(label):
                    route, population = label, None
                else:
                    population = label
            out.append(item)
    return out


def sentences(paragraph: str) -> list[str]:
    """Sentences of a paragraph (split before a capital after . ! ?), each verbatim."""
    return [s for s in (part.strip() for part in _SENTENCE_RE.split(paragraph)) if s]
