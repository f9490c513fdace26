"""The pipeline's own data: spans, lines, drawings, blocks, monographs, sections, parts.

Everything keeps its physical page and bbox for as long as possible (seed
003 §3, "giữ bbox, page, font và reading order càng lâu càng tốt"): structure
is only dropped after it has been turned into provenance on a chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from duocthu_contracts.corpus import BlockKind
from duocthu_contracts.sections import SectionKey

if TYPE_CHECKING:
    from duocthu_ingest.domain.tables import TableVerdict

BBox = tuple[float, float, float, float]


def union(boxes: list[BBox]) -> BBox:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def overlap_area(a: BBox, b: BBox) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def center_inside(inner: BBox, outer: BBox, pad: float = 0.0) -> bool:
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] - pad <= cx <= outer[2] + pad and outer[1] - pad <= cy <= outer[3] + pad


class SpanOrigin(StrEnum):
    EXTRACTED = "extracted"
    TRANSCRIBED = "transcribed"  # re-inserted from the verified transcription file


class Column(StrEnum):
    FULL_WIDTH = "full_width"
    LEFT = "left"
    RIGHT = "right"
    UNKNOWN = "unknown"


class SpanState(StrEnum):
    """Seed 003 §6.2: every span ends in exactly one named state."""

    NORMALIZED_TEXT = "normalized_text"
    HEADING = "heading"
    BOILERPLATE_EXCLUDED = "boilerplate_excluded"
    QUARANTINED = "quarantined"
    OUT_OF_SCOPE = "out_of_scope"
    STRUCTURAL_EXCLUDED = "structural_excluded"


@dataclass(slots=True)
class Span:
    span_id: str
    page: int
    block: int
    line: int
    index: int
    bbox: BBox
    text: str
    font: str
    size: float
    bold: bool
    origin: SpanOrigin = SpanOrigin.EXTRACTED
    column: Column = Column.UNKNOWN


@dataclass(slots=True)
class Line:
    """Spans sharing a baseline in one column, in x order."""

    spans: list[Span]
    page: int
    column: Column = Column.UNKNOWN
    paragraph_start: bool = False

    @property
    def bbox(self) -> BBox:
        return union([s.bbox for s in self.spans])

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans)

    @property
    def bold(self) -> bool:
        inked = [s for s in self.spans if s.text.strip()]
        return bool(inked) and all(s.bold for s in inked)

    @property
    def size(self) -> float:
        inked = [s.size for s in self.spans if s.text.strip()]
        return max(inked) if inked else 0.0


@dataclass(frozen=True, slots=True)
class BlockMarker:
    """Where a quarantined block sits in the reading stream (it belongs to the section around it)."""

    block_id: str
    page: int
    bbox: BBox
    column: Column


StreamItem = Line | BlockMarker


class DrawingKind(StrEnum):
    HLINE = "hline"
    VLINE = "vline"
    RECT = "rect"
    CURVE = "curve"  # filled curves: glyph outlines, logos
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Drawing:
    """One vector item of the page (a ruling line, a rectangle, a glyph outline)."""

    kind: DrawingKind
    bbox: BBox
    path: int  # index of the path the item belongs to
    filled: bool = False


@dataclass(slots=True)
class PageContent:
    """What extraction sees on one physical page."""

    page: int
    width: float
    height: float
    spans: list[Span]
    drawings: list[Drawing] = field(default_factory=list)
    images: list[BBox] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class OutlineRun:
    """Text drawn as vector outlines (no text layer), found from the page's curves."""

    page: int
    bbox: BBox


@dataclass(slots=True)
class QuarantineBlock:
    """A table or 2-D formula region: shown as a page crop, never flattened into prose."""

    block_id: str
    kind: BlockKind
    shape: str
    page: int
    bbox: BBox
    printed_page: int | None = None
    drug_id: str | None = None
    section_key: SectionKey | None = None
    span_ids: list[str] = field(default_factory=list)
    text: str = ""  # the block's extracted text: only used to prove it never leaks into prose
    caption: str = ""  # a table's caption ("Bảng 1. …") as printed above it
    table: TableVerdict | None = None  # both extractors' verdict: released cells, or why it stays quarantined

    @property
    def released(self) -> bool:
        """A table whose two independent grids agree in every cell and which has a caption."""
        return self.table is not None and self.table.released


@dataclass(frozen=True, slots=True)
class TextPiece:
    """Where one slice ``[start, end)`` of a section's text lies on the page."""

    start: int
    end: int
    page: int
    bbox: BBox
    span_ids: tuple[str, ...]


@dataclass(slots=True)
class Section:
    key: SectionKey
    heading: str
    heading_page: int
    text: str = ""
    pieces: list[TextPiece] = field(default_factory=list)
    block_ids: list[str] = field(default_factory=list)
    heading_span_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Monograph:
    drug_id: str
    drug_name: str
    title_page: int
    title_span_ids: list[str]
    title_bbox: BBox
    sections: list[Section] = field(default_factory=list)
    unmapped_headings: list[str] = field(default_factory=list)

    @property
    def pages(self) -> tuple[int, int]:
        pages = [self.title_page] + [p.page for s in self.sections for p in s.pieces]
        return min(pages), max(pages)

    def section(self, key: SectionKey) -> Section | None:
        return next((s for s in self.sections if s.key is key), None)
