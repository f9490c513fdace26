"""The verifier's own reading of cited evidence: passages with the labels that scope them.

A claim is checked against *passages*, not against a block as a bag of
words.  A passage is one sentence of a paragraph, or one table row (a table
rendered as text prints each row on its own line, "Bảng 1 … — eGFR …: 45 –
59; Liều khởi đầu: …", and a row is never split), together with its *scope*:
the labels a reader of the book sees in force over it, outermost first —

* the block's ``context_labels`` (the ingest worker repeats the
  population/route labels in force at a chunk seam; the repetition is
  stripped from the text, it is not source) — or, for a block without them
  that directly continues the previous block of the evidence list (same
  drug and section, next part), the headings in force at that block's end,
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
_LABEL_RE = re.compile(r"^((?:[^:;.!?]|[.!?](?!\s+[A-ZÀ-ỸĐ])|(?<=\d):(?=\d))+):(?!\d)")
_ROW_HEADER_RE = re.compile(r"^([^:]+):")


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
    """The short label a paragraph or sentence opens with ("Suy thận (Clcr 10 – 50 ml/phút):"), if any.

    Stricter than a first-colon split: a label never spans a sentence end or
    a semicolon (then the colon belongs to a later clause, and the words
    before it are not a heading), and a colon between digits is a ratio, not
    a label.  A table row's header is the whole text before its first colon.
    """
    match = _LABEL_RE.match(text) if not is_table_row(text) else _ROW_HEADER_RE.match(text)
    if match is None:
        return None
    head = match.group(1).strip()
    if not head or len(head) > LABEL_MAX_CHARS or len(head.split()) > LABEL_MAX_WORDS:
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


def _continues(block: Evidence, previous: Evidence) -> bool:
    return (block.drug_id, block.section_key) == (previous.drug_id, previous.section_key) \
        and block.part_index == previous.part_index + 1


def _opening_scope(evidence: Sequence[Evidence], index: int) -> tuple[str, ...]:
    """Headings in force where block ``index`` (1-based) starts."""
    block = evidence[index - 1]
    carried = tuple(_strip_label(lbl) for lbl in block.context_labels if _strip_label(lbl))
    if carried or index == 1 or not _continues(block, evidence[index - 2]):
        return carried
    return _closing_scope(evidence, index - 1)


def _closing_scope(evidence: Sequence[Evidence], index: int) -> tuple[str, ...]:
    scope = _Scope(_opening_scope(evidence, index))
    for raw in _source_text(evidence[index - 1]).split("\n"):
        own = leading_label(raw.strip())
        if own is not None and raw.strip().endswith(":") and raw.strip()[:-1].strip() == own:
            scope.enter(own)
    return scope.labels()


def _source_text(block: Evidence) -> str:
    joined = " ".join(block.context_labels)
    if joined and block.text.startswith(joined):
        return block.text[len(joined):].lstrip()
    return block.text


def block_paragraphs(evidence: Sequence[Evidence], index: int) -> list[Paragraph]:
    """Block ``index``'s paragraphs (newline-separated), carried labels stripped from the text."""
    scope = _Scope(_opening_scope(evidence, index))
    text = _source_text(evidence[index - 1])
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


def passages(evidence: Sequence[Evidence], citations: Sequence[int],
             reading: EvidenceReading | None = None) -> list[Passage]:
    """Every passage of the cited blocks (each cited once, in citation order)."""
    reading = reading if reading is not None else EvidenceReading(evidence)
    out: list[Passage] = []
    for index in dict.fromkeys(citations):
        if not 1 <= index <= len(evidence):
            continue
        for para in reading.paragraphs(index):
            if para.label_only:
                continue
            base = [*para.scope, *([para.own_label] if para.own_label else [])]
            for n, sentence in enumerate(sentences(para.text)):
                own = leading_label(sentence) if n > 0 else None
                scope = tuple([*base, own] if own else base)
                out.append(Passage(index, para.index, sentence, para.text, scope))
    return out


class EvidenceReading:
    """One turn's evidence as read here, each block read once however many claims and checks cite it.

    Why: every claim of a draft re-read its cited blocks — paragraphs, their
    scopes, the whitespace-normalised text — and the verbatim test runs twice
    per claim (binding, then the verbatim check), so a 5-claim answer over one
    block parsed that block ten times (issue 20).  The reading holds the
    results of the pure functions above per block index, for one evidence
    list; it never outlives the draft under check, and what it returns is
    exactly what those functions return (callers must not mutate it).
    """

    def __init__(self, evidence: Sequence[Evidence]) -> None:
        self.evidence = evidence
        self._paragraphs: dict[int, list[Paragraph]] = {}
        self._joined: dict[int, tuple[str, tuple[int, ...]]] = {}

    def paragraphs(self, index: int) -> list[Paragraph]:
        """:func:`block_paragraphs` of block ``index`` (1-based)."""
        found = self._paragraphs.get(index)
        if found is None:
            found = self._paragraphs[index] = block_paragraphs(self.evidence, index)
        return found

    def joined(self, index: int) -> tuple[str, tuple[int, ...]]:
        """Block ``index``'s paragraphs normalised and joined by one space, and where each paragraph starts."""
        found = self._joined.get(index)
        if found is None:
            starts: list[int] = []
            joined = ""
            for para in self.paragraphs(index):
                starts.append(len(joined) + (1 if joined else 0))
                joined = f"{joined} {normalized(para.text)}" if joined else normalized(para.text)
            found = self._joined[index] = (joined, tuple(starts))
        return found
