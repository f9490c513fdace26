"""Table grids: what two independent extractors must agree on before a table's cells may be released.

A dosing table read wrongly is the most dangerous thing the parser can do
(issue 19), so a table leaves quarantine only when two extractors that share
no code (PyMuPDF's ``find_tables`` in ``adapters.table_finder``, our own
reconstruction from ruling lines and word positions in
``domain.ruled_grid``) give the same grid, cell for cell, after the same
normalisation (whitespace, Unicode NFC, spans resolved into a full grid,
header paths).  Anything else — a missing caption, a different shape, one
differing character — keeps it quarantined and is reported.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from duocthu_ingest.domain.model import BBox

HEADER_JOIN = " › "


def norm_text(text: str) -> str:
    """Whitespace collapsed, Unicode NFC: the form both grids are compared in."""
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", text)).strip()


@dataclass(frozen=True, slots=True)
class Word:
    """One word of the text layer with its box (``page.get_text("words")``)."""

    bbox: BBox
    text: str


@dataclass(frozen=True, slots=True)
class RawCell:
    """One cell as an extractor saw it: anchor slot, span, rectangle, text."""

    row: int
    col: int
    rowspan: int
    colspan: int
    bbox: BBox
    text: str


@dataclass(frozen=True, slots=True)
class Slot:
    """One grid position after spans are resolved: the text of the cell covering it, and that cell's anchor."""

    text: str
    anchor: tuple[int, int]
    span: tuple[int, int]  # (rowspan, colspan)


@dataclass(slots=True)
class TableGrid:
    """A normalised table: every slot filled, header rows known, each column's header path."""

    slots: list[list[Slot]]
    header_rows: int
    cells: list[RawCell]

    @property
    def nrows(self) -> int:
        return len(self.slots)

    @property
    def ncols(self) -> int:
        return len(self.slots[0]) if self.slots else 0

    def header_path(self, col: int) -> list[str]:
        """The header texts above ``col``, top-down, a spanned header counted once."""
        path: list[str] = []
        seen: set[tuple[int, int]] = set()
        for r in range(self.header_rows):
            slot = self.slots[r][col]
            if slot.anchor not in seen and slot.text:
                path.append(slot.text)
            seen.add(slot.anchor)
        return path

    def body_rows(self) -> list[list[tuple[str, str]]]:
        """Each body row as (header label, cell text) pairs; a cell spanning columns is rendered once."""
        out: list[list[tuple[str, str]]] = []
        for r in range(self.header_rows, self.nrows):
            pairs: list[tuple[str, str]] = []
            c = 0
            while c < self.ncols:
                slot = self.slots[r][c]
                last = c + slot.span[1] - (c - slot.anchor[1])
                paths = [self.header_path(k) for k in range(c, last)]
                pairs.append((_label(paths), slot.text))
                c = last
            out.append(pairs)
        return out


def _label(paths: Sequence[list[str]]) -> str:
    """One column's header path, or for a cell spanning columns their common head and the leaves."""
    if len(paths) == 1:
        return HEADER_JOIN.join(paths[0])
    common: list[str] = []
    for parts in zip(*paths, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    leaves = [HEADER_JOIN.join(p[len(common):]) for p in paths if p[len(common):]]
    return HEADER_JOIN.join([*common, ", ".join(dict.fromkeys(leaves))] if leaves else common)


class GridError(ValueError):
    """An extractor's cells do not form a grid (overlap, hole): the table cannot be released."""


def resolve(cells: Sequence[RawCell]) -> TableGrid:
    """Spans resolved into a full grid; header rows = the rows the first row's cells reach down to."""
    if not cells:
        raise GridError("no cells")
    nrows = max(c.row + c.rowspan for c in cells)
    ncols = max(c.col + c.colspan for c in cells)
    grid: list[list[Slot | None]] = [[None] * ncols for _ in range(nrows)]
    normed = [RawCell(c.row, c.col, c.rowspan, c.colspan, c.bbox, norm_text(c.text)) for c in cells]
    for cell in normed:
        for r in range(cell.row, cell.row + cell.rowspan):
            for c in range(cell.col, cell.col + cell.colspan):
                if grid[r][c] is not None:
                    raise GridError(f"overlapping cells at r{r}c{c}")
                grid[r][c] = Slot(cell.text, (cell.row, cell.col), (cell.rowspan, cell.colspan))
    holes = [(r, c) for r in range(nrows) for c in range(ncols) if grid[r][c] is None]
    if holes:
        raise GridError(f"no cell covers r{holes[0][0]}c{holes[0][1]}")
    slots = [[s for s in row if s is not None] for row in grid]
    header_rows = max(c.rowspan for c in normed if c.row == 0)
    return TableGrid(slots, header_rows, sorted(normed, key=lambda c: (c.row, c.col)))


def first_difference(a: TableGrid, b: TableGrid) -> str | None:
    """The first slot (row-major) where the grids differ, named; ``None`` when they agree everywhere."""
    if (a.nrows, a.ncols) != (b.nrows, b.ncols):
        return f"shape {a.nrows}×{a.ncols} ≠ {b.nrows}×{b.ncols}"
    if a.header_rows != b.header_rows:
        return f"header rows {a.header_rows} ≠ {b.header_rows}"
    for r in range(a.nrows):
        for c in range(a.ncols):
            x, y = a.slots[r][c], b.slots[r][c]
            if x != y:
                return f"r{r}c{c}: {x.text!r} {x.anchor}/{x.span} ≠ {y.text!r} {y.anchor}/{y.span}"
    return None


@dataclass(slots=True)
class TableVerdict:
    """Whether a table block's cells may be released, and why not."""

    grid: TableGrid | None = None
    caption: str = ""
    reasons: list[str] = field(default_factory=list)

    @property
    def released(self) -> bool:
        return self.grid is not None and not self.reasons


def reconcile(caption: str, finder: Sequence[RawCell] | str, ruled: Sequence[RawCell] | str) -> TableVerdict:
    """Release only a captioned table whose two independently extracted grids agree in every slot.

    An extractor that could not read the table hands over its reason (a string) instead of cells.
    """
    verdict = TableVerdict(caption=norm_text(caption))
    if not verdict.caption:
        verdict.reasons.append("no caption")
    grids: list[TableGrid] = []
    for name, cells in (("find_tables", finder), ("ruled_grid", ruled)):
        if isinstance(cells, str):
            verdict.reasons.append(f"{name}: {cells}")
            continue
        try:
            grids.append(resolve(cells))
        except GridError as exc:
            verdict.reasons.append(f"{name}: {exc}")
    if len(grids) == 2:
        diff = first_difference(grids[0], grids[1])
        if diff is not None:
            verdict.reasons.append(f"cells disagree: {diff}")
        elif grids[0].nrows <= grids[0].header_rows or any(not s.text for row in grids[0].slots for s in row):
            verdict.reasons.append("a table without body rows or with an empty cell")
    if not verdict.reasons:
        verdict.grid = grids[0]
    return verdict
