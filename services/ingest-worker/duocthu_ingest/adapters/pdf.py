"""PyMuPDF at the edge: open and check a PDF, extract spans and drawings per page, render pages.

PyMuPDF is the primary extractor (seed 003 §5.1).  Spans are read from
``rawdict`` so that each glyph's position is known: a run whose glyphs come
out right-to-left is re-ordered by x (one of the book's hazards) and counted.
:class:`PdfPages` implements :class:`duocthu_ingest.ports.SourcePages` and
:class:`PdfFiles` implements :class:`duocthu_ingest.ports.PdfSource`; no other
module imports PyMuPDF for the pipeline.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from duocthu_ingest.adapters.source import resolve_pdf
from duocthu_ingest.adapters.table_finder import find_table_cells
from duocthu_ingest.adapters.transcriptions import load_transcriptions
from duocthu_ingest.domain.model import BBox, Drawing, DrawingKind, PageContent, Span
from duocthu_ingest.domain.repair import Transcriptions
from duocthu_ingest.domain.tables import RawCell, Word
from duocthu_ingest.errors import BadInput
from duocthu_runtime import file_sha256

BOLD_FLAG = 16
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi|,b\b|-b\b", re.IGNORECASE)
THIN = 2.0  # points: a rectangle thinner than this is a ruling line
GLYPH_MAX_HEIGHT = 24.0  # points: a filled path no taller than this may be a glyph outline


@dataclass
class ExtractStats:
    reversed_runs: int = 0


def open_pdf(path: Path) -> pymupdf.Document:
    """Open ``path`` as a PDF or raise :class:`BadInput` naming what is wrong with it."""
    if not path.is_file():
        raise BadInput(f"không tìm thấy tệp PDF: {path}")
    with path.open("rb") as f:
        head = f.read(1024)
    if b"%PDF-" not in head:
        raise BadInput(f"tệp không phải PDF (thiếu tiêu đề %PDF-): {path}")
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except (RuntimeError, ValueError, OSError, pymupdf.mupdf.FzErrorBase) as exc:  # FileDataError and friends
        raise BadInput(f"không đọc được PDF {path}: {exc}") from exc
    if doc.needs_pass or doc.is_encrypted:
        doc.close()
        raise BadInput(f"PDF được mã hóa (cần mật khẩu), không thể xử lý: {path}")
    if doc.page_count == 0:
        doc.close()
        raise BadInput(f"PDF không có trang nào: {path}")
    if doc.is_repaired or _truncated(path):
        doc.close()
        raise BadInput(f"PDF bị hỏng hoặc bị cắt cụt (thiếu phần cuối %%EOF/xref), không thể tin cậy: {path}")
    return doc


def _truncated(path: Path) -> bool:
    size = path.stat().st_size
    with path.open("rb") as f:
        f.seek(max(0, size - 2048))
        tail = f.read()
    return b"%%EOF" not in tail


def _is_bold(span: dict[str, Any]) -> bool:
    return bool(span["flags"] & BOLD_FLAG) or bool(_BOLD_NAME.search(span["font"]))


def _span_text(raw: dict[str, Any], stats: ExtractStats) -> str:
    chars = raw["chars"]
    if len(chars) > 1:
        xs = [c["origin"][0] for c in chars]
        if all(b < a for a, b in itertools.pairwise(xs)):
            stats.reversed_runs += 1
            chars = sorted(chars, key=lambda c: c["origin"][0])
    return "".join(c["c"] for c in chars)


def extract_page(page: pymupdf.Page, stats: ExtractStats) -> PageContent:
    number = page.number
    spans: list[Span] = []
    data = page.get_text("rawdict", flags=pymupdf.TEXTFLAGS_RAWDICT & ~pymupdf.TEXT_PRESERVE_IMAGES)
    for b_index, block in enumerate(data["blocks"]):
        if block.get("type", 0) != 0:
            continue
        for l_index, line in enumerate(block["lines"]):
            for s_index, raw in enumerate(line["spans"]):
                text = _span_text(raw, stats)
                if not text:
                    continue
                spans.append(Span(
                    span_id=f"p{number}_b{b_index}_l{l_index}_s{s_index}", page=number, block=b_index, line=l_index,
                    index=s_index, bbox=tuple(raw["bbox"]), text=text, font=raw["font"], size=round(raw["size"], 2),
                    bold=_is_bold(raw),
                ))
    rect = page.rect
    images = [tuple(float(v) for v in info["bbox"]) for info in page.get_image_info()]
    return PageContent(page=number, width=rect.width, height=rect.height, spans=spans,
                       drawings=list(drawings_of(page)), images=images)  # type: ignore[arg-type]


def drawings_of(page: pymupdf.Page) -> Iterator[Drawing]:
    for p_index, path in enumerate(page.get_drawings()):
        filled = path.get("fill") is not None and "f" in (path.get("type") or "")
        stroked = "s" in (path.get("type") or "")
        items = path["items"]
        prect = path["rect"]
        simple_rect = len(items) == 1 and items[0][0] in ("re", "qu")
        if filled and not stroked and not simple_rect and prect.height <= GLYPH_MAX_HEIGHT:
            yield Drawing(DrawingKind.CURVE, _box(prect), p_index, filled=True)
            continue
        width = float(path.get("width") or 0.0)
        for item in items:
            kind = item[0]
            if kind == "l":
                a, b = item[1], item[2]
                box = (min(a.x, b.x), min(a.y, b.y), max(a.x, b.x), max(a.y, b.y))
                if abs(a.y - b.y) <= 1.0:
                    yield Drawing(DrawingKind.HLINE, (box[0], box[1] - width / 2, box[2], box[3] + width / 2), p_index)
                elif abs(a.x - b.x) <= 1.0:
                    yield Drawing(DrawingKind.VLINE, (box[0] - width / 2, box[1], box[2] + width / 2, box[3]), p_index)
                else:
                    yield Drawing(DrawingKind.OTHER, box, p_index, filled=filled)
            elif kind in ("re", "qu"):
                r = item[1].rect if kind == "qu" else item[1]
                if r.height <= THIN and r.width > THIN:
                    yield Drawing(DrawingKind.HLINE, _box(r), p_index, filled=filled)
                elif r.width <= THIN and r.height > THIN:
                    yield Drawing(DrawingKind.VLINE, _box(r), p_index, filled=filled)
                else:
                    yield Drawing(DrawingKind.RECT, _box(r), p_index, filled=filled and not stroked)
            elif kind == "c":
                yield Drawing(DrawingKind.CURVE if filled else DrawingKind.OTHER, _box(prect), p_index, filled=filled)


def _box(r: pymupdf.Rect) -> BBox:
    return (float(r.x0), float(r.y0), float(r.x1), float(r.y1))


def page_lines_text(page: pymupdf.Page) -> list[str]:
    """Plain text lines of a page (cheap; used to find part dividers outside a job's page range)."""
    text: str = page.get_text("text")
    return [line.strip() for line in text.splitlines() if line.strip()]


def render_ink(page: pymupdf.Page, dpi: int, masks: Sequence[BBox], pad: float = 0.8) -> tuple[np.ndarray, float]:
    """Grayscale render with every ``masks`` box painted white; returns (ink bitmap, pixels per point)."""
    scale = dpi / 72.0
    pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), colorspace=pymupdf.csGRAY, alpha=False)
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)
    ink = img < 160
    for x0, y0, x1, y1 in masks:
        c0 = max(0, int((x0 - pad) * scale))
        r0 = max(0, int((y0 - pad) * scale))
        c1 = min(pix.width, int(np.ceil((x1 + pad) * scale)))
        r1 = min(pix.height, int(np.ceil((y1 + pad) * scale)))
        ink[r0:r1, c0:c1] = False
    return ink, scale


class PdfPages:
    """An open PDF's pages for the pipeline."""

    def __init__(self, doc: pymupdf.Document) -> None:
        self._doc = doc
        self._stats = ExtractStats()

    @property
    def page_count(self) -> int:
        return int(self._doc.page_count)

    @property
    def reversed_runs(self) -> int:
        return self._stats.reversed_runs

    def content(self, number: int) -> PageContent:
        return extract_page(self._doc[number], self._stats)

    def lines(self, number: int) -> list[str]:
        return page_lines_text(self._doc[number])

    def ink(self, number: int, dpi: int, masks: Sequence[BBox]) -> tuple[np.ndarray, float]:
        return render_ink(self._doc[number], dpi, masks)

    def words(self, number: int) -> list[Word]:
        return [Word((float(w[0]), float(w[1]), float(w[2]), float(w[3])), str(w[4]))
                for w in self._doc[number].get_text("words")]

    def table_cells(self, number: int, clip: BBox) -> list[RawCell] | str:
        return find_table_cells(self._doc[number], clip)

    def close(self) -> None:
        self._doc.close()


class PdfFiles:
    """Job inputs on this machine: fetched to ``download_dir`` when they are URLs."""

    def __init__(self, download_dir: Path) -> None:
        self.download_dir = download_dir

    def fetch(self, uri: str) -> Path:
        return resolve_pdf(uri, self.download_dir)

    def open(self, path: Path) -> PdfPages:
        return PdfPages(open_pdf(path))

    def sha256(self, path: Path) -> str:
        return file_sha256(path)

    def transcriptions(self, path: Path) -> Transcriptions:
        return load_transcriptions(path)
