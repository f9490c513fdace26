"""The sample's tables as printed: every cell's words inside its own rectangle, equal to the source, spans drawn.

Read back from the PDF itself (words and ruling lines), compared with the
monograph YAML, so a typesetter that lets a cell run into its neighbour or
drops a spanned header cell fails here.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pymupdf

from duocthu_corpus.monograph import TableBlock, load_all
from tests.fixtures.corpus import SamplePdf


def norm(text: str) -> str:
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", text)).strip()


def _inside(inner: tuple[float, ...], outer: list[float], pad: float = 0.6) -> bool:
    return (inner[0] >= outer[0] - pad and inner[1] >= outer[1] - pad
            and inner[2] <= outer[2] + pad and inner[3] <= outer[3] + pad)


def _source_tables() -> dict[str, list[list[Any]]]:
    out: dict[str, list[list[Any]]] = {}
    for mono in load_all():
        for blocks in mono.sections.values():
            for block in blocks:
                if isinstance(block, TableBlock):
                    t = block.table
                    out[t.caption] = [[(c.text, c.rowspan, c.colspan) for c in row] for row in [*t.header, *t.rows]]
    return out


def test_every_cell_prints_inside_its_rectangle_and_equals_the_source(sample_pdf: SamplePdf) -> None:
    truth = sample_pdf.truth()
    source = _source_tables()
    tables = [t for m in truth["monographs"] for t in m["tables"]]
    assert len(tables) == len(source) >= 7
    with pymupdf.open(sample_pdf.book.path) as doc:
        for table in tables:
            page = doc[table["page"]]
            words = page.get_text("words")
            in_table = [w for w in words if _inside(w[:4], table["bbox"], 0.0)]
            claimed: set[int] = set()
            for cell in table["cells"]:
                mine = [i for i, w in enumerate(in_table) if _inside(w[:4], cell["bbox"])]
                claimed.update(mine)
                got = norm(" ".join(in_table[i][4] for i in mine))
                assert got == norm(cell["text"]), (table["caption"], cell)
            assert claimed == set(range(len(in_table))), f"words outside every cell in {table['caption']}"
            printed = [[(c["text"], c["rowspan"], c["colspan"]) for c in table["cells"] if c["row"] == r]
                       for r in range(max(c["row"] + c["rowspan"] for c in table["cells"]))]
            printed = [row for row in printed if row]
            assert printed == [row for row in source[table["caption"]] if row], table["caption"]


def test_spanned_cells_have_no_ruling_through_them(sample_pdf: SamplePdf) -> None:
    truth = sample_pdf.truth()
    spanned = 0
    with pymupdf.open(sample_pdf.book.path) as doc:
        for table in (t for m in truth["monographs"] for t in m["tables"]):
            lines = [item for path in doc[table["page"]].get_drawings() for item in path["items"] if item[0] == "l"]
            for cell in table["cells"]:
                if cell["rowspan"] == 1 and cell["colspan"] == 1:
                    continue
                spanned += 1
                x0, y0, x1, y1 = cell["bbox"]
                for _, a, b in lines:
                    if abs(a.x - b.x) < 0.5 and x0 + 1 < a.x < x1 - 1:  # a vertical rule crossing the cell's inside
                        assert not (min(a.y, b.y) < y1 - 1 and max(a.y, b.y) > y0 + 1), (table["caption"], cell)
                    if abs(a.y - b.y) < 0.5 and y0 + 1 < a.y < y1 - 1:
                        assert not (min(a.x, b.x) < x1 - 1 and max(a.x, b.x) > x0 + 1), (table["caption"], cell)
    assert spanned >= 7
