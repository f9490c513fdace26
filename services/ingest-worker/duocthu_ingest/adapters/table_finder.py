"""The first table extractor: PyMuPDF's ``find_tables()``, each cell's text clipped from the page's words.

``find_tables`` gives the cell rectangles (a spanned slot comes back as
``None``); its own text extraction joins glyphs without the spaces the
book prints, so each cell's text is read with ``get_text("words",
clip=cell)`` instead.  This module shares no code with
``domain.ruled_grid``, the second extractor it is checked against.
"""

from __future__ import annotations

from typing import Any

import pymupdf

from duocthu_ingest.domain.model import BBox
from duocthu_ingest.domain.tables import RawCell

EDGE = 1.0  # points: cell edges closer than this are one grid line


def _index(edges: list[float], value: float) -> int:
    return min(range(len(edges)), key=lambda i: abs(edges[i] - value))


def _distinct(values: list[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > EDGE:
            out.append(v)
    return out


def find_table_cells(page: pymupdf.Page, clip: BBox) -> list[RawCell] | str:
    """The largest table ``find_tables`` sees inside ``clip``, as cells with clipped word text, or why not."""
    x0, y0, x1, y1 = clip
    found: Any = page.find_tables(clip=pymupdf.Rect(x0 - 2, y0 - 2, x1 + 2, y1 + 2), strategy="lines")
    tables = list(found.tables)
    if not tables:
        return "find_tables found no table"
    table = max(tables, key=lambda t: pymupdf.Rect(t.bbox).get_area())
    boxes: list[BBox] = [(float(c[0]), float(c[1]), float(c[2]), float(c[3]))
                         for row in table.rows for c in row.cells if c is not None]
    xs = _distinct([b[0] for b in boxes] + [b[2] for b in boxes])
    ys = _distinct([b[1] for b in boxes] + [b[3] for b in boxes])
    cells: list[RawCell] = []
    for box in boxes:
        row, col = _index(ys, box[1]), _index(xs, box[0])
        words = page.get_text("words", clip=pymupdf.Rect(box))
        words.sort(key=lambda w: (w[5], w[6], w[7]))  # block, line, word number: PyMuPDF's reading order
        cells.append(RawCell(row, col, _index(ys, box[3]) - row, _index(xs, box[2]) - col, box,
                             " ".join(str(w[4]) for w in words)))
    return cells
