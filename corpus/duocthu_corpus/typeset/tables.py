"""Table layout for the sample formulary: spans placed on a grid, cell text wrapped inside its cell.

The earlier typesetter drew one header row and fixed-width columns, so long
cells ran into their neighbours and spanned header cells were lost: the crop
a user was asked to check was itself misleading.  Here every cell (header
spans included) gets a rectangle, its text is wrapped to the rectangle's
inner width, and the rulings are drawn only where two different cells meet,
so a spanned cell is visibly one cell.  The layout is pure geometry; the
writer draws it and the book records it as ground truth for the table tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

PAD = 2.5  # points between a ruling and the cell's text
CELL_SIZE = 7.5
CELL_LEADING = 9.0

Measure = Callable[[str, bool], float]  # (text, bold) -> width in points at CELL_SIZE


@dataclass(frozen=True, slots=True)
class SourceCell:
    text: str
    colspan: int = 1
    rowspan: int = 1


@dataclass(slots=True)
class PlacedCell:
    """One cell as printed: grid position, span, rectangle and wrapped lines."""

    row: int
    col: int
    rowspan: int
    colspan: int
    text: str
    header: bool
    lines: list[str] = field(default_factory=list)
    bbox: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)


@dataclass(slots=True)
class TableLayout:
    header_rows: int
    cols: list[float]  # x boundaries, len = ncols + 1
    rows: list[float]  # y boundaries, len = nrows + 1
    cells: list[PlacedCell]
    segments: list[tuple[float, float, float, float]]  # ruling lines (x0, y0, x1, y1)


def place(header: Sequence[Sequence[SourceCell]], body: Sequence[Sequence[SourceCell]]) -> tuple[int, list[PlacedCell]]:
    """HTML-style placement: each cell takes the next free grid slot of its row; spans reserve slots below."""
    taken: set[tuple[int, int]] = set()
    placed: list[PlacedCell] = []
    width = 0
    for r, row in enumerate([*header, *body]):
        c = 0
        for cell in row:
            while (r, c) in taken:
                c += 1
            placed.append(PlacedCell(r, c, cell.rowspan, cell.colspan, cell.text, r < len(header)))
            for dr in range(cell.rowspan):
                for dc in range(cell.colspan):
                    taken.add((r + dr, c + dc))
            c += cell.colspan
        width = max(width, c)
    return width, placed


def wrap_words(text: str, width: float, measure: Callable[[str], float]) -> list[str]:
    """Greedy wrap to ``width``; a word wider than the cell is cut between characters."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        pieces = [word]
        if measure(word) > width:
            pieces, part = [], ""
            for ch in word:
                if part and measure(part + ch) > width:
                    pieces.append(part)
                    part = ""
                part += ch
            pieces.append(part)
        for piece in pieces:
            trial = f"{current} {piece}" if current else piece
            if current and measure(trial) > width:
                lines.append(current)
                current = piece
            else:
                current = trial
    lines.append(current)
    return lines


def _column_widths(ncols: int, cells: Sequence[PlacedCell], total: float, measure: Measure) -> list[float]:
    """Widths proportional to each column's single-span text (capped), never narrower than its longest word."""
    want = [20.0] * ncols
    floor = [12.0] * ncols
    for cell in cells:
        if cell.colspan == 1:
            want[cell.col] = max(want[cell.col], min(measure(cell.text, cell.header), total * 0.45) + 2 * PAD)
            longest = max((measure(w, cell.header) for w in cell.text.split()), default=0.0)
            floor[cell.col] = max(floor[cell.col], min(longest, total * 0.3) + 2 * PAD)
    scale = total / sum(want)
    widths = [max(w * scale, f) for w, f in zip(want, floor, strict=True)]
    excess = sum(widths) - total
    if excess > 0:  # take it back from the columns above their floor
        slack = [w - f for w, f in zip(widths, floor, strict=True)]
        room = sum(slack) or 1.0
        widths = [w - excess * s / room for w, s in zip(widths, slack, strict=True)]
    return widths


def layout(header: Sequence[Sequence[SourceCell]], body: Sequence[Sequence[SourceCell]], *, x0: float, x1: float,
           top: float, measure: Measure) -> TableLayout:
    ncols, cells = place(header, body)
    nrows = len(header) + len(body)
    widths = _column_widths(ncols, cells, x1 - x0, measure)
    cols = [x0]
    for w in widths:
        cols.append(cols[-1] + w)
    cols[-1] = x1
    for cell in cells:
        inner = cols[cell.col + cell.colspan] - cols[cell.col] - 2 * PAD
        bold = cell.header
        cell.lines = wrap_words(cell.text, inner, lambda t: measure(t, bold))  # noqa: B023 (used at once)
    heights = [0.0] * nrows
    for cell in sorted(cells, key=lambda c: c.rowspan):
        need = len(cell.lines) * CELL_LEADING + 2 * PAD
        have = sum(heights[cell.row:cell.row + cell.rowspan])
        if need > have:
            heights[cell.row + cell.rowspan - 1] += need - have
    rows = [top]
    for h in heights:
        rows.append(rows[-1] + h)
    for cell in cells:
        cell.bbox = (cols[cell.col], rows[cell.row], cols[cell.col + cell.colspan], rows[cell.row + cell.rowspan])
    return TableLayout(len(header), cols, rows, cells, _rulings(cells, cols, rows))


def _rulings(cells: Sequence[PlacedCell], cols: Sequence[float], rows: Sequence[float]) -> list[tuple[float, float, float, float]]:
    """Grid edges only where two different cells (or a cell and the outside) meet, merged into runs."""
    owner: dict[tuple[int, int], int] = {}
    for i, cell in enumerate(cells):
        for dr in range(cell.rowspan):
            for dc in range(cell.colspan):
                owner[(cell.row + dr, cell.col + dc)] = i
    nrows, ncols = len(rows) - 1, len(cols) - 1
    segs: list[tuple[float, float, float, float]] = []
    for r in range(nrows + 1):  # horizontal boundary above row r
        run: int | None = None
        for c in range(ncols + 1):
            edge = c < ncols and owner.get((r - 1, c), -1) != owner.get((r, c), -2)
            if edge and run is None:
                run = c
            elif not edge and run is not None:
                segs.append((cols[run], rows[r], cols[c], rows[r]))
                run = None
    for c in range(ncols + 1):  # vertical boundary left of column c
        run = None
        for r in range(nrows + 1):
            edge = r < nrows and owner.get((r, c - 1), -1) != owner.get((r, c), -2)
            if edge and run is None:
                run = r
            elif not edge and run is not None:
                segs.append((cols[c], rows[run], cols[c], rows[r]))
                run = None
    return segs
