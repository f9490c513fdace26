"""Repair before segmentation (seed 003 §6.1): vector-outline text, PUA glyphs, boilerplate.

Text drawn as vector outlines has no text layer; the runs are found from the
page's filled glyph paths and re-inserted as synthetic spans from the
verified transcription file (a legitimate pipeline input: a human read each
run once).  Private-Use-Area glyphs are replaced only through that file's
mapping; anything left unmapped stays visible to the PUA gate.  Running
headers and footers are boilerplate, read only for the folio.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.model import (
    BBox,
    DrawingKind,
    OutlineRun,
    PageContent,
    Span,
    SpanOrigin,
    overlap_area,
    union,
)
from duocthu_ingest.domain.text import is_pua


@dataclass(frozen=True)
class TranscribedRun:
    """One verified transcription of a vector-outline run: where it is and what it says."""

    page: int
    bbox: BBox
    text: str
    bold: bool = True
    size: float = 10.0
    font: str = "transcription"


@dataclass(frozen=True)
class TranscribedGlyph:
    """One verified reading of a private-use glyph at a place on a page."""

    page: int
    bbox: BBox
    char: str
    text: str


@dataclass(frozen=True)
class Transcriptions:
    runs: tuple[TranscribedRun, ...] = ()
    pua: dict[str, str] = field(default_factory=dict)  # PUA char -> verified replacement, wherever it occurs
    glyphs: tuple[TranscribedGlyph, ...] = ()  # or per occurrence, when one code point reads differently

    def glyph_at(self, page: int, bbox: BBox, char: str) -> str | None:
        for glyph in self.glyphs:
            if glyph.page == page and glyph.char == char and overlap_area(glyph.bbox, bbox) > 0:
                return glyph.text
        return self.pua.get(char)

    def on_page(self, page: int) -> list[TranscribedRun]:
        return [r for r in self.runs if r.page == page]


@dataclass
class RepairStats:
    outline_runs: int = 0
    outline_runs_transcribed: int = 0
    outline_runs_unmerged: list[str] = field(default_factory=list)
    transcriptions_without_ink: list[str] = field(default_factory=list)
    pua_replaced: int = 0
    pua_unmapped: int = 0
    replacement_chars: int = 0

    def to_report(self) -> dict[str, object]:
        return {"outline_runs": self.outline_runs, "outline_runs_transcribed": self.outline_runs_transcribed,
                "outline_runs_not_merged": self.outline_runs_unmerged,
                "transcriptions_without_ink": self.transcriptions_without_ink,
                "pua_replaced": self.pua_replaced, "pua_unmapped": self.pua_unmapped,
                "replacement_chars": self.replacement_chars}


def outline_runs(page: PageContent) -> list[OutlineRun]:
    """Filled glyph paths not covered by any text span, clustered into line-like runs."""
    glyphs = [d.bbox for d in page.drawings if d.kind is DrawingKind.CURVE]
    glyphs = [g for g in glyphs if not any(overlap_area(g, s.bbox) > 0.5 * _area(g) for s in page.spans)]
    glyphs.sort(key=lambda b: (b[1], b[0]))
    runs: list[list[BBox]] = []
    for glyph in glyphs:
        height = glyph[3] - glyph[1]
        for run in runs:
            box = union(run)
            same_row = min(box[3], glyph[3]) - max(box[1], glyph[1]) > 0.3 * min(height, box[3] - box[1])
            near = glyph[0] - box[2] <= 1.5 * max(height, box[3] - box[1]) and box[0] - glyph[2] <= 1.5 * height
            if same_row and near:
                run.append(glyph)
                break
        else:
            runs.append([glyph])
    return [OutlineRun(page.page, union(run)) for run in runs]


def _area(b: BBox) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def insert_transcriptions(page: PageContent, runs: Sequence[OutlineRun], transcriptions: Transcriptions,
                          stats: RepairStats) -> None:
    """Add a synthetic span per verified transcription; count runs nobody transcribed."""
    entries = transcriptions.on_page(page.page)
    stats.outline_runs += len(runs)
    matched: set[int] = set()
    for run in runs:
        hit = next((i for i, e in enumerate(entries) if overlap_area(e.bbox, run.bbox) > 0.3 * _area(run.bbox)), None)
        if hit is None:
            stats.outline_runs_unmerged.append(f"trang vật lý {page.page}, bbox {tuple(round(v) for v in run.bbox)}")
        else:
            matched.add(hit)
            stats.outline_runs_transcribed += 1
    for i, entry in enumerate(entries):
        if i not in matched and not any(overlap_area(entry.bbox, r.bbox) > 0 for r in runs):
            stats.transcriptions_without_ink.append(f"trang vật lý {page.page}: {entry.text!r}")
            continue
        page.spans.append(Span(
            span_id=f"p{page.page}_t{i}", page=page.page, block=-1, line=i, index=0, bbox=entry.bbox,
            text=entry.text, font=entry.font, size=entry.size, bold=entry.bold, origin=SpanOrigin.TRANSCRIBED,
        ))


def repair_glyphs(page: PageContent, transcriptions: Transcriptions, stats: RepairStats) -> None:
    for span in page.spans:
        if "\ufffd" in span.text:
            stats.replacement_chars += span.text.count("\ufffd")
        if not any(is_pua(ch) for ch in span.text):
            continue
        out = []
        for ch in span.text:
            reading = transcriptions.glyph_at(page.page, span.bbox, ch) if is_pua(ch) else None
            if reading is not None:
                out.append(reading)
                stats.pua_replaced += 1
            else:
                if is_pua(ch):
                    stats.pua_unmapped += 1
                out.append(ch)
        span.text = "".join(out)


def split_boilerplate(page: PageContent, config: IngestConfig) -> tuple[list[Span], list[Span]]:
    """(body spans, header/footer spans)."""
    top = page.height * config.header_band
    bottom = page.height * (1 - config.footer_band)
    body: list[Span] = []
    boiler: list[Span] = []
    for span in page.spans:
        (boiler if span.bbox[3] <= top or span.bbox[1] >= bottom else body).append(span)
    return body, boiler
