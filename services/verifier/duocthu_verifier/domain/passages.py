"""The verifier's own reading of cited evidence: passages with the labels that scope them.

A claim is checked against *passages*, not against a block as a bag of
words.  A passage is one sentence of a paragraph, or one table row (a table
rendered as text prints each row on its own line, "Bảng 1 … — eGFR …: 45 –
59; Liều khởi đầu: …", and a row is never split), together with its *scope*:
the labels a reader of the book sees in force over it, outermost first —

* the block's ``context_labels`` (the ingest worker repeats the
  population/route labels in force at a chunk seam; the repetition is
  stripped from the text, it is not source),
* the label-only paragraphs above it in the block ("Đường uống:",
  "Người lớn:"); a route heading resets the population heading under it,
* the paragraph's own leading label ("Trẻ em từ 1 đến 5 tuổi: …") and, for a
  later sentence, that sentence's own leading label.

This module is written for the verifier alone: the writer has its own
reading of the same text (services never share code), and the verifier must
not trust the writer's reading to check the writer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.evidence import Evidence
from duocthu_verifier.domain.text import normalized

#: A leading label is short: the book's "Người lớn và trẻ em cân nặng từ 50 kg:" is 9 words.
LABEL_MAX_CHARS = 90
LABEL_MAX_WORDS = 14
_ROUTE_RE = re.compile(
    r"^(đường|tiêm|truyền|uống|đặt|dùng ngoài|bôi|nhỏ|khí dung|hít|xịt|ngậm|thụt)\b", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-ỸĐ])")
_TABLE_ROW_RE = re.compile(r"^Bảng\s+\d+\b")


@dataclass(frozen=True)
class Passage:
    """One sentence or table row of a cited block, and the labels in force over it."""

    block: int  # 1-based citation index of the block
    paragraph: int  # 0-based index of the paragraph inside the block
    text: str  # verbatim sentence or row
    paragraph_text: str  # the verbatim paragraph it belongs to
    scope: tuple[str, ...]  # labels in force, outermost first (without trailing colons)

    @property
    def carrier(self) -> str:
        """What a claim bound here may draw from: the labels in force and the passage itself."""
        return " ".join([*self.scope, self.text])


@dataclass(frozen=True)
class Paragraph:
    block: int
    index: int
    text: str
    scope: tuple[str, ...]  # headings and carried labels in force (not the paragraph's own label)
    own_label: str | None

    @property
    def label_only(self) -> bool:
        return self.own_label is not None and self.text.rstrip().rstrip(":").strip() == self.own_label \
            and self.text.rstrip().endswith(":")


def leading_label(text: str) -> str | None:
    """The short label before the first colon of a paragraph or sentence ("Suy thận (Clcr …)"), if any."""
    head, sep, _ = text.partition(":")
    head = head.strip()
    if not sep or not head or len(head) > LABEL_MAX_CHARS or len(head.split()) > LABEL_MAX_WORDS:
        return None
    return head


def is_route(label: str) -> bool:
    return bool(_ROUTE_RE.match(label))


def is_table_row(paragraph: str) -> bool:
    return bool(_TABLE_ROW_RE.match(paragraph))


class _Scope:
    """Headings in force inside one block: carried labels, then route and population headings."""

    def __init__(self, carried: Sequence[str]) -> None:
        self.route: str | None = None
        self.population: str | None = None
        self.other: list[str] = []
        for label in carried:
            self.enter(label)

    def enter(self, label: str) -> None:
        if is_route(label):
            self.route, self.population = label, None
        else:
            self.population = label

    def labels(self) -> tuple[str, ...]:
        return tuple(x for x in (self.route, self.population) if x)


def _strip_label(label: str) -> str:
    return label.strip().rstrip(":").strip()


def block_paragraphs(index: int, block: Evidence) -> list[Paragraph]:
    """The block's paragraphs (newline-separated), with carried labels stripped from the text."""
    text = block.text
    carried = [_strip_label(lbl) for lbl in block.context_labels if _strip_label(lbl)]
    joined = " ".join(block.context_labels)
    if joined and text.startswith(joined):
        text = text[len(joined):].lstrip()
    scope = _Scope(carried)
    out: list[Paragraph] = []
    for raw in text.split("\n"):
        para = raw.strip()
        if not para:
            continue
        own = leading_label(para)
        item = Paragraph(index, len(out), para, scope.labels(), own)
        if item.label_only and own is not None:
            scope.enter(own)
        out.append(item)
    return out


def sentences(paragraph: str) -> list[str]:
    """Sentences of a paragraph (a break before a capital after . ! ?), each verbatim; a table row is one."""
    if is_table_row(paragraph):
        return [paragraph]
    return [s for s in (part.strip() for part in _SENTENCE_RE.split(paragraph)) if s]


def passages(evidence: Sequence[Evidence], citations: Sequence[int]) -> list[Passage]:
    """Every passage of the cited blocks (each cited once, in citation order)."""
    out: list[Passage] = []
    for index in dict.fromkeys(citations):
        if not 1 <= index <= len(evidence):
            continue
        for para in block_paragraphs(index, evidence[index - 1]):
            if para.label_only:
                continue
            base = [*para.scope, *([para.own_label] if para.own_label else [])]
            for n, sentence in enumerate(sentences(para.text)):
                own = leading_label(sentence) if n > 0 else None
                scope = tuple([*base, own] if own else base)
                out.append(Passage(index, para.index, sentence, para.text, scope))
    return out


def paragraph_scopes(evidence: Sequence[Evidence], citations: Sequence[int]) -> list[tuple[str, tuple[str, ...]]]:
    """(normalised paragraph text, labels in force incl. its own) of every cited paragraph."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for index in dict.fromkeys(citations):
        if not 1 <= index <= len(evidence):
            continue
        for para in block_paragraphs(index, evidence[index - 1]):
            own = (para.own_label,) if para.own_label else ()
            out.append((normalized(para.text), (*para.scope, *own)))
    return out
