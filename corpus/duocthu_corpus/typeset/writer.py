"""Page geometry and the two-column text writer of the sample formulary PDF.

It reproduces the layout hazards of the real book (seed 003 §3–§9) on
purpose: two columns whose content stream may draw the right column first,
printed folios offset from physical pages, bold titles in two sizes, ruled
tables, a real fraction bar, headings drawn as vector outlines with no text
layer, and private-use glyphs.  Fonts come from ``pymupdf-fonts`` (Noto
covers Vietnamese), so nothing is downloaded.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import pymupdf

from duocthu_corpus.typeset.tables import CELL_LEADING, CELL_SIZE, PAD, SourceCell, TableLayout, layout

W, H = 595.0, 842.0
TOP, BOTTOM = 70.0, 800.0
LEFT = (50.0, 287.0)
RIGHT = (307.0, 545.0)
BODY = 9.0
LEADING = 12.0
INDENT = 10.0


class Writer:
    def __init__(self, doc: pymupdf.Document, folio_offset: int, reversed_pages: set[int]) -> None:
        self.doc = doc
        self.offset = folio_offset
        self.reversed_pages = reversed_pages
        self.regular = pymupdf.Font("notos")
        self.bold = pymupdf.Font("notosbo")
        self.pua_font = pymupdf.Font("ubuntu")
        self.page: pymupdf.Page | None = None
        self.column = 0
        self.y = TOP
        self.pending: list[tuple[int, float, float, str, bool, float]] = []  # column, x, y, text, bold, size
        self.transcriptions: list[dict[str, object]] = []
        self.header = ""

    # ----------------------------------------------------------------- pages
    def new_page(self, header: bool = True) -> None:
        self.flush()
        self.page = self.doc.new_page(width=W, height=H)
        self.page.insert_font(fontname="R", fontbuffer=self.regular.buffer)
        self.page.insert_font(fontname="B", fontbuffer=self.bold.buffer)
        self.page.insert_font(fontname="U", fontbuffer=self.pua_font.buffer)
        self.column = 0
        self.y = TOP
        if header:
            folio = str(self.page.number + self.offset)
            self.page.insert_text((50, 40), self.header, fontname="R", fontsize=8)
            self.page.insert_text((530, 40), folio, fontname="R", fontsize=8)
            self.page.draw_line((50, 46), (545, 46), width=0.6)
            self.page.insert_text((50, 825), "Mẫu minh họa — không dùng cho lâm sàng", fontname="R", fontsize=7)

    def flush(self) -> None:
        """Draw the queued column text; on a 'reversed' page the right column is drawn first."""
        if self.page is None:
            return
        items = self.pending
        if self.page.number in self.reversed_pages:
            items = sorted(items, key=lambda it: -it[0])
        writer = pymupdf.TextWriter(self.page.rect)
        for _, x0, y, text, bold, size in items:
            x = x0
            font = self.bold if bold else self.regular
            for run in _runs(text):
                use = self.pua_font if _is_pua(run[0]) else font  # private-use glyphs from a font that has them
                writer.append((x, y), run, font=use, fontsize=size)
                x += use.text_length(run, fontsize=size)
        writer.write_text(self.page)
        self.pending = []

    def col(self) -> tuple[float, float]:
        return LEFT if self.column == 0 else RIGHT

    def need(self, height: float) -> None:
        if self.y + height > BOTTOM:
            if self.column == 0:
                self.column = 1
                self.y = TOP
            else:
                self.new_page()

    # ----------------------------------------------------------------- text
    def wrap(self, text: str, width: float, font: pymupdf.Font, size: float, first_indent: float) -> list[str]:
        words = text.split(" ")
        lines: list[str] = []
        current = ""
        used = 0.0
        space = font.text_length(" ", fontsize=size)
        limit = width - first_indent
        for word in words:
            extra = self.measure(word, font, size) + (space if current else 0.0)
            if used + extra <= limit:
                current = f"{current} {word}" if current else word
                used += extra
            else:
                lines.append(current)
                current, used = word, self.measure(word, font, size)
                limit = width
        lines.append(current)
        return lines

    def measure(self, text: str, font: pymupdf.Font, size: float) -> float:
        return float(sum((self.pua_font if _is_pua(r[0]) else font).text_length(r, fontsize=size) for r in _runs(text)))

    def paragraph(self, text: str, *, bold_prefix: str = "", size: float = BODY) -> None:
        x0, x1 = self.col()
        full = f"{bold_prefix} {text}".strip() if bold_prefix else text
        lines = self.wrap(full, x1 - x0, self.regular, size, INDENT)
        for i, line in enumerate(lines):
            self.need(LEADING)
            x0, x1 = self.col()
            x = x0 + (INDENT if i == 0 else 0.0)
            self.y += LEADING
            if i == 0 and bold_prefix:
                self.pending.append((self.column, x, self.y, bold_prefix, True, size))
                rest = line[len(bold_prefix):]
                dx = self.bold.text_length(bold_prefix, fontsize=size)
                self.pending.append((self.column, x + dx, self.y, rest, False, size))
            else:
                self.pending.append((self.column, x, self.y, line, False, size))

    def heading(self, text: str, outlined: bool = False) -> None:
        self.need(LEADING * 3)
        x0, _ = self.col()
        self.y += LEADING + 3
        if not outlined:
            self.pending.append((self.column, x0, self.y, text, True, BODY))
            return
        # drawn as vector outlines: filled curved glyph shapes, no text layer (one of the book's hazards)
        assert self.page is not None
        width = self.bold.text_length(text, fontsize=BODY)
        shape = self.page.new_shape()
        x = x0
        for ch in text:
            advance = self.bold.text_length(ch, fontsize=BODY)
            if ch != " ":
                shape.draw_oval(pymupdf.Rect(x + 0.4, self.y - 6.5, x + advance - 0.4, self.y))
            x += advance
        shape.finish(fill=(0, 0, 0), color=None)
        shape.commit()
        self.transcriptions.append({"page": self.page.number, "bbox": [x0, self.y - 9.6, x0 + width, self.y + 2.5],
                                    "text": text, "bold": True, "size": BODY})

    def title(self, text: str, size: float, wrap_after: int | None = None) -> int:
        self.need(LEADING * 6)
        x0, _ = self.col()
        self.y += 10
        words = text.split(" ")
        parts = [" ".join(words[:wrap_after]), " ".join(words[wrap_after:])] if wrap_after else [text]
        for part in parts:
            self.y += LEADING + 1
            self.pending.append((self.column, x0, self.y, part, True, size))
        assert self.page is not None
        return int(self.page.number)

    def table(self, caption: str, header: Sequence[Sequence[SourceCell]],
              body: Sequence[Sequence[SourceCell]]) -> tuple[int, TableLayout]:
        """A ruled table with its spans: every cell's text wrapped inside its own rectangle."""
        x0, x1 = self.col()
        caption_lines = self.wrap(caption, x1 - x0, self.regular, BODY, 0.0)

        def measure(text: str, bold: bool) -> float:
            return self.measure(text, self.bold if bold else self.regular, CELL_SIZE)

        trial = layout(header, body, x0=x0, x1=x1, top=0.0, measure=measure)
        self.need(LEADING * len(caption_lines) + trial.rows[-1] + 8)
        x0, x1 = self.col()
        for line in caption_lines:
            self.y += LEADING
            self.pending.append((self.column, x0, self.y, line, False, BODY))
        grid = layout(header, body, x0=x0, x1=x1, top=self.y + 4, measure=measure)
        assert self.page is not None
        for cell in grid.cells:
            for i, line in enumerate(cell.lines):
                baseline = cell.bbox[1] + PAD + CELL_LEADING * (i + 1) - 2.0
                self.pending.append((self.column, cell.bbox[0] + PAD, baseline, line, cell.header, CELL_SIZE))
        for sx0, sy0, sx1, sy1 in grid.segments:
            self.page.draw_line((sx0, sy0), (sx1, sy1), width=0.5)
        self.y = grid.rows[-1] + 4
        return int(self.page.number), grid

    def formula(self, lead: str, numerator: str, denominator: str) -> None:
        """A 2-D fraction with a real bar beside its lead; set smaller rather than overflow into the gutter."""
        self.need(LEADING * 4)
        x0, x1 = self.col()
        assert self.page is not None
        self.y += LEADING + 4
        bar_y = self.y + 4
        for lead_size, size in ((BODY, 8.0), (8.0, 7.0), (7.0, 6.0)):
            lead_w = self.regular.text_length(lead, fontsize=lead_size)
            width = max(self.regular.text_length(numerator, fontsize=size),
                        self.regular.text_length(denominator, fontsize=size))
            nx = x0 + lead_w + 6
            if nx + width <= x1:
                break
        self.pending.append((self.column, x0, bar_y + 3, lead, False, lead_size))
        self.pending.append((self.column, nx, bar_y - 2, numerator, False, size))
        self.pending.append((self.column, nx, bar_y + 10, denominator, False, size))
        self.page.draw_line((nx, bar_y), (nx + width, bar_y), width=0.6)
        self.y = bar_y + 12


PUA_CHAR = "\ue0ff"  # a private-use code point the Ubuntu font draws


_NOTO = pymupdf.Font("notos")


@functools.cache
def _is_pua(ch: str) -> bool:
    """Drawn with the fallback font: a private-use glyph, or a sign Noto Sans lacks (≤ ≥ −)."""
    return 0xE000 <= ord(ch) <= 0xF8FF or not _NOTO.has_glyph(ord(ch))


def _runs(text: str) -> list[str]:
    runs: list[str] = []
    for ch in text:
        if runs and _is_pua(runs[-1][-1]) == _is_pua(ch):
            runs[-1] += ch
        else:
            runs.append(ch)
    return runs


