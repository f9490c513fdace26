"""The reading stream -> monographs -> sections -> parts (seed 003 §8).

Titles are found by the seed's rule, not by font size alone: bold, at most
10% lowercase letters (so "HMG-CoA" passes), short, in one of the title
sizes, in the monograph part, never a part divider; consecutive title lines
merge (a long title wraps).  Sections start at bold headings looked up in
the heading taxonomy, on their own line or as an inline label ("Tên chung
quốc tế: Paracetamol.").  Every span gets its ledger state here, and every
slice of section text keeps its page, bbox and span ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from duocthu_contracts.sections import SectionKey
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.ledger import CoverageLedger
from duocthu_ingest.domain.model import (
    BlockMarker,
    Column,
    Line,
    Monograph,
    QuarantineBlock,
    Section,
    Span,
    SpanState,
    StreamItem,
    TextPiece,
    union,
)
from duocthu_ingest.domain.text import heading_key, letter_count, lowercase_ratio, slugify, ws_normalize

_HYPHEN_BREAK = re.compile(r"[^\W\d_]-$")


class Scope(StrEnum):
    BEFORE = "before"  # front matter, general chapters (Phần 1)
    MONOGRAPHS = "monographs"  # Phần 2: the only part that is chunked
    AFTER = "after"  # appendices (Phần 3)
    BACK_INDEX = "back_index"


@dataclass
class SegmentationResult:
    monographs: list[Monograph] = field(default_factory=list)
    back_index_lines: list[tuple[str, bool]] = field(default_factory=list)  # (text, starts an entry)
    text_outside_sections: list[str] = field(default_factory=list)
    unmapped_headings: list[str] = field(default_factory=list)
    unassigned_blocks: list[str] = field(default_factory=list)
    before_first_title: list[str] = field(default_factory=list)
    monograph_part_pages: list[int] = field(default_factory=list)  # physical pages seen in the monograph part
    scope: Scope = Scope.BEFORE


def is_divider(text: str, config: IngestConfig, patterns: Sequence[re.Pattern[str]] | None = None) -> bool:
    """A part divider ("PHẦN 2", "CÁC CHUYÊN LUẬN THUỐC"): all caps and one of the configured patterns."""
    return lowercase_ratio(text) <= config.title.max_lowercase_ratio and any(
        p.match(text) for p in (patterns if patterns is not None else config.part_dividers()))


def add_index_line(entries: list[tuple[str, bool]], line: Line, text: str) -> None:
    """A back-index line with whether it starts an entry (the parser joins wrapped entries)."""
    entries.append((text, line.paragraph_start))


def line_text(spans: Sequence[Span]) -> str:
    """Spans joined in x order, with a space where the PDF has a gap but no space character."""
    out = ""
    previous: Span | None = None
    for span in spans:
        if previous is not None and out and not out.endswith(" ") and not span.text.startswith(" "):
            gap = span.bbox[0] - previous.bbox[2]
            if gap > 0.2 * max(span.size, 1.0):
                out += " "
        out += span.text
        previous = span
    return ws_normalize(out)


class Segmenter:
    def __init__(self, config: IngestConfig, ledger: CoverageLedger, blocks: dict[str, QuarantineBlock], *,
                 scope: Scope = Scope.BEFORE, printed: Callable[[int], int | None] = lambda p: None,
                 owned_pages: tuple[int, int] | None = None) -> None:
        self.config = config
        self.ledger = ledger
        self.blocks = blocks
        self.printed = printed
        self.owned_pages = owned_pages
        self.result = SegmentationResult(scope=scope)
        self._dividers = config.part_dividers()
        self._monograph_part = config.monograph_part()
        self._after = config.after_monographs()
        self._index = config.back_index()
        self._mono: Monograph | None = None
        self._section: Section | None = None
        self._title_lines: list[Line] = []
        self._held: Line | None = None  # a bold line that begins a known heading which wraps
        self._heading_prefixes = {k[:i] for k in config.headings for i in range(1, len(k)) if k[i] == " "}
        self._owning = owned_pages is None  # a partial job owns from its first title on
        self._done = False

    # ------------------------------------------------------------------ classification

    def is_divider(self, text: str) -> bool:
        return is_divider(text, self.config, self._dividers)

    def is_title_shaped(self, line: Line, text: str) -> bool:
        """Bold, in a title size, short, not a known heading: a title line, pending the case rule."""
        rule = self.config.title
        if not line.bold or not text or len(text) > rule.max_chars or len(text.split()) > rule.max_words:
            return False
        if not any(abs(line.size - size) <= rule.size_tolerance for size in rule.sizes):
            return False
        return heading_key(text) not in self.config.headings and not text.endswith(":")

    def is_title(self, text: str) -> bool:
        """The case rule, applied to the merged title ("THUỐC ỨC CHẾ HMG-CoA" wraps; its parts alone may fail)."""
        rule = self.config.title
        return letter_count(text) >= rule.min_letters and lowercase_ratio(text) <= rule.max_lowercase_ratio

    def heading_split(self, line: Line) -> tuple[SectionKey, list[Span], list[Span]] | None:
        """(key, heading spans, rest) when the line opens a section."""
        spans = line.spans
        prefix: list[Span] = []
        for span in spans:
            if span.bold or not span.text.strip():
                prefix.append(span)
            else:
                break
        while prefix and not prefix[-1].text.strip():
            prefix.pop()
        if not prefix:
            return None
        # the longest bold prefix that is a known heading ("Chỉ định" or "Tên chung quốc tế:")
        for cut in range(len(prefix), 0, -1):
            key = self.config.headings.get(heading_key(line_text(prefix[:cut])))
            if key is not None:
                return key, prefix[:cut], list(spans[cut:])
        return None

    def looks_like_heading(self, line: Line, text: str) -> bool:
        """A whole bold line, mixed case, short, not a label: a heading the taxonomy does not know."""
        return (line.bold and not text.endswith((":", ".", ",", ";")) and len(text.split()) <= 8
                and lowercase_ratio(text) > self.config.title.max_lowercase_ratio and text[:1].isupper())

    # ------------------------------------------------------------------ the stream

    def feed(self, stream: Sequence[StreamItem]) -> SegmentationResult:
        for item in stream:
            if isinstance(item, BlockMarker):
                self._flush_title()
                self._release_held()
                self._block(item)
            else:
                self._line(item)
        return self.result

    @property
    def done(self) -> bool:
        """A partial job has met the first title past its pages: nothing further is its own."""
        return self._done

    def finish(self) -> SegmentationResult:
        self._flush_title()
        self._release_held()
        self._close()
        return self.result

    def _ids(self, spans: Sequence[Span]) -> list[str]:
        return [s.span_id for s in spans]

    def _line(self, line: Line) -> None:
        text = line_text(line.spans)
        ids = self._ids(line.spans)
        if not text:
            self.ledger.assign(ids, SpanState.STRUCTURAL_EXCLUDED)
            return
        if self.is_divider(text):
            self._flush_title()
            self._release_held()
            self._close()
            self.ledger.assign(ids, SpanState.STRUCTURAL_EXCLUDED)
            if any(p.match(text) for p in self._index):
                self.result.scope = Scope.BACK_INDEX
            elif any(p.match(text) for p in self._monograph_part):
                self.result.scope = Scope.MONOGRAPHS
            elif any(p.match(text) for p in self._after):
                self.result.scope = Scope.AFTER
            return
        if not self._in_scope(line):
            self.ledger.assign(ids, SpanState.OUT_OF_SCOPE)
            if self.result.scope is Scope.BACK_INDEX:
                add_index_line(self.result.back_index_lines, line, text)
            return
        self.result.monograph_part_pages.append(line.page)
        if self.is_title_shaped(line, text):
            self._release_held()
            if self._title_lines and not self._mergeable(self._title_lines[-1], line):
                self._flush_title()
            self._title_lines.append(line)
            if len(self._title_lines) >= self.config.title.max_lines:
                self._flush_title()
            return
        self._flush_title()
        self._body(line, text, ids)

    def _body(self, line: Line, text: str, ids: list[str], *, may_hold: bool = True) -> None:
        held, self._held = self._held, None
        if held is not None:
            if self._wrapped_heading(held, line):
                return
            self._body(held, line_text(held.spans), self._ids(held.spans), may_hold=False)
        if (may_hold and line.bold and self._mono is not None and self.heading_split(line) is None
                and heading_key(text) in self._heading_prefixes):
            self._held = line  # "Tác dụng không mong" + next line "muốn (ADR)": decide with the next line
            return
        if not self._owning or self._done:
            self.ledger.assign(ids, SpanState.OUT_OF_SCOPE)  # another job's monograph
            return
        split = self.heading_split(line) if self._mono is not None else None
        if split is not None and self._mono is not None:
            key, heading, rest = split
            self._open_section(key, line_text(heading), line.page, heading, rest=rest, line=line)
            return
        if self._mono is not None and self.looks_like_heading(line, text):
            self._mono.unmapped_headings.append(text)
            self.result.unmapped_headings.append(f"{self._mono.drug_id}: {text!r} (trang vật lý {line.page})")
        if self._mono is None:
            # in the monograph part but before its first title (a divider's subtitle, an introduction):
            # not a monograph's text; a monograph lost here would show up as a back-index miss
            self.result.before_first_title.append(f"{text[:60]!r} (trang vật lý {line.page})")
            self.ledger.assign(ids, SpanState.OUT_OF_SCOPE)
            return
        if self._section is None:
            self.result.text_outside_sections.append(f"{self._mono.drug_id}: {text[:60]!r} (trang vật lý {line.page})")
            self.ledger.assign(ids, SpanState.STRUCTURAL_EXCLUDED)
            return
        self._append(line.spans, line, paragraph_start=line.paragraph_start)

    def _in_scope(self, line: Line) -> bool:
        configured = self.config.monograph_printed_range
        if configured is not None:
            printed = self.printed(line.page)
            return printed is not None and configured[0] <= printed <= configured[1]
        return self.result.scope is Scope.MONOGRAPHS

    def _may_open(self, line: Line) -> bool:
        """Whether a title on this page opens a monograph this job owns."""
        if self.owned_pages is None:
            return True
        first, last = self.owned_pages
        if line.page > last:
            self._close()
            self._done = True
            return False
        if line.page >= first and not self._done:
            self._owning = True
            return True
        return False

    def _wrapped_heading(self, held: Line, line: Line) -> bool:
        """Open a section when ``held`` and the bold start of ``line`` form one known heading."""
        if self._mono is None or not self._owning or self._done:
            return False
        prefix: list[Span] = []
        for span in line.spans:
            if not (span.bold or not span.text.strip()):
                break
            prefix.append(span)
        found = None
        for cut in range(len(prefix), 0, -1):
            key = self.config.headings.get(heading_key(line_text(held.spans) + " " + line_text(prefix[:cut])))
            if key is not None:
                found = key, [*held.spans, *prefix[:cut]], list(line.spans[cut:])
                break
        if found is None:
            return False
        key, heading, rest = found
        self._open_section(key, f"{line_text(held.spans)} {line_text(heading[len(held.spans):])}", held.page,
                           heading, rest=rest, line=line)
        return True

    def _release_held(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            self._body(held, line_text(held.spans), self._ids(held.spans), may_hold=False)

    def _mergeable(self, previous: Line, line: Line) -> bool:
        if previous.page != line.page or previous.column != line.column:
            return True  # a title wrapping across a column or page break
        gap = line.bbox[1] - previous.bbox[3]
        size = max(previous.size, line.size)
        return -0.5 * size <= gap <= self.config.title.merge_gap_lines * size  # glyph boxes of tight lines overlap

    def _flush_title(self) -> None:
        if not self._title_lines:
            return
        lines, self._title_lines = self._title_lines, []
        name = ws_normalize(" ".join(line_text(ln.spans) for ln in lines))
        if not self.is_title(name):
            for line in lines:  # title-shaped, but not a title by the case rule: ordinary lines
                self._body(line, line_text(line.spans), self._ids(line.spans))
            return
        if not self._may_open(lines[0]):
            self.ledger.assign([s.span_id for ln in lines for s in ln.spans], SpanState.OUT_OF_SCOPE)
            return
        self._close()
        spans = [s for ln in lines for s in ln.spans]
        self.ledger.assign(self._ids(spans), SpanState.HEADING)
        self._mono = Monograph(drug_id=slugify(name), drug_name=name, title_page=lines[0].page,
                               title_span_ids=self._ids(spans), title_bbox=union([ln.bbox for ln in lines]))
        self._section = None

    def _close(self) -> None:
        if self._mono is not None:
            self.result.monographs.append(self._mono)
        self._mono = None
        self._section = None

    def _open_section(self, key: SectionKey, heading_text: str, page: int, heading: Sequence[Span], *,
                      rest: Sequence[Span], line: Line) -> None:
        """Start a section; text printed after the heading on its line opens the first paragraph."""
        assert self._mono is not None
        self.ledger.assign(self._ids(heading), SpanState.HEADING)
        self._section = Section(key=key, heading=heading_text, heading_page=page, heading_span_ids=self._ids(heading))
        self._mono.sections.append(self._section)
        if rest and line_text(rest).lstrip(":").strip():
            self._append(rest, line, paragraph_start=True, drop_colon=True)
        else:
            self.ledger.assign(self._ids(rest), SpanState.HEADING)

    def _append(self, spans: Sequence[Span], line: Line, *, paragraph_start: bool, drop_colon: bool = False) -> None:
        assert self._section is not None
        section = self._section
        piece = line_text(spans)
        if drop_colon:  # "Tên chung quốc tế" in bold, ": Paracetamol." in regular type
            piece = piece.lstrip(":").lstrip()
        if not piece:
            self.ledger.assign(self._ids(spans), SpanState.NORMALIZED_TEXT)
            return
        if section.text:
            if paragraph_start:
                section.text += "\n"
            elif not _HYPHEN_BREAK.search(section.text):
                section.text += " "  # a line wrapped at a space; after "beta-" the word goes on
        start = len(section.text)
        section.text += piece
        section.pieces.append(TextPiece(start, len(section.text), line.page, union([s.bbox for s in spans]),
                                        tuple(self._ids(spans))))
        self.ledger.assign(self._ids(spans), SpanState.NORMALIZED_TEXT)

    def _block(self, marker: BlockMarker) -> None:
        block = self.blocks[marker.block_id]
        block.printed_page = self.printed(marker.page)
        if self._mono is None or self._section is None or not self._owning or self._done:
            if self._owning and not self._done and self.result.scope is Scope.MONOGRAPHS:
                self.result.unassigned_blocks.append(marker.block_id)
            return
        block.drug_id = self._mono.drug_id
        block.section_key = self._section.key
        self._section.block_ids.append(block.block_id)


def column_of(item: StreamItem) -> Column:
    return item.column
