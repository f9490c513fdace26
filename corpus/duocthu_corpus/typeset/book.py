"""Typesetting monographs into a Dược thư-style book, with its ground truth and transcription sidecar.

Deterministic: the same monographs give the same bytes (fixed metadata, no
random document id), so a rebuilt PDF has the same sha256 and an unchanged
corpus is never re-ingested.  The ground truth (monograph → section → exact
text, printed pages) is for tests and ``duocthu eval parse`` only; the
ingest worker never reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from duocthu_contracts.sections import INLINE_LABEL_SECTIONS, SECTION_HEADINGS
from duocthu_corpus.monograph import Cell, FormulaBlock, Monograph, TableBlock
from duocthu_corpus.typeset.tables import SourceCell, TableLayout
from duocthu_corpus.typeset.writer import PUA_CHAR, Writer

SAMPLE_LABEL = "Mẫu minh họa — không phải Dược thư Quốc gia, không dùng cho lâm sàng"
_FIXED_DATE = "D:20260101000000Z"

FRONT_MATTER = (
    "Tài liệu này là bản mẫu minh họa do dự án duocthu soạn để trình diễn và kiểm thử hệ thống tra cứu. "
    "Đây không phải Dược thư Quốc gia Việt Nam và không được dùng để ra quyết định lâm sàng.",
    "Mỗi chuyên luận gồm các mục theo thứ tự của Dược thư: tên chung quốc tế, mã ATC, loại thuốc, dạng thuốc "
    "và hàm lượng, dược lý và cơ chế tác dụng, dược động học, chỉ định, chống chỉ định, thận trọng, thời kỳ mang "
    "thai, thời kỳ cho con bú, tác dụng không mong muốn, hướng dẫn cách xử trí ADR, liều lượng và cách dùng, "
    "tương tác thuốc, độ ổn định và bảo quản, tương kỵ, quá liều và xử trí, thông tin quy chế, tên thương mại.",
    "Liều luôn gắn với đối tượng và đường dùng được ghi ngay trước nó. Bảng và công thức hai chiều chỉ được tra "
    "cứu trên ảnh trang gốc.",
)


@dataclass
class Expected:
    title: str
    drug_id: str
    sections: dict[str, str] = field(default_factory=dict)
    printed_page: int = 0
    physical_pages: list[int] = field(default_factory=list)
    tables: list[dict[str, object]] = field(default_factory=list)  # as printed: page, caption, cells with boxes


@dataclass
class Book:
    path: Path
    expected: list[Expected]
    folio_offset: int
    transcriptions: list[dict[str, object]] = field(default_factory=list)  # outlined runs, for the sidecar
    reversed_pages: tuple[int, ...] = ()
    pua: dict[str, str] = field(default_factory=dict)

    def ground_truth(self) -> dict[str, object]:
        return {"label": SAMPLE_LABEL, "folio_offset": self.folio_offset, "reversed_pages": list(self.reversed_pages),
                "monographs": [{"drug_id": e.drug_id, "title": e.title, "printed_page": e.printed_page,
                                "physical_pages": e.physical_pages, "sections": e.sections,
                                "tables": e.tables}
                               for e in self.expected]}

    def sidecar(self) -> dict[str, object]:
        return {"runs": self.transcriptions,
                "pua": {f"U+{ord(bad):04X}": good for bad, good in self.pua.items()}}


def _swap(text: str, pua: dict[str, str] | None) -> str:
    for bad, good in (pua or {}).items():
        text = text.replace(good, bad)
    return text


def _cells(rows: Sequence[Sequence[Cell]]) -> list[list[SourceCell]]:
    return [[SourceCell(c.text, c.colspan, c.rowspan) for c in row] for row in rows]


def _table_truth(section: str, caption: str, page: int, grid: TableLayout) -> dict[str, object]:
    """What a correct extraction of this table must give: every cell's text, span and rectangle."""
    return {"section": section, "caption": caption, "page": page, "header_rows": grid.header_rows,
            "bbox": [grid.cols[0], grid.rows[0], grid.cols[-1], grid.rows[-1]],
            "cells": [{"row": c.row, "col": c.col, "rowspan": c.rowspan, "colspan": c.colspan, "text": c.text,
                       "header": c.header, "bbox": [round(v, 2) for v in c.bbox]} for c in grid.cells]}


def build_book(path: Path, monos: Sequence[Monograph], *, folio_offset: int = 96,
               reversed_pages: Sequence[int] = (3,), pua: dict[str, str] | None = None,
               pua_drugs: Sequence[str] | None = None, with_index: bool = True, front_matter: bool = False,
               outlined: Sequence[tuple[str, str]] = (),
               progress: Callable[[int, int], None] | None = None) -> Book:
    """Typeset ``monos``; ``pua`` (private-use char → what it stands for) applies to ``pua_drugs`` (all if None);
    ``outlined``: (drug_id, section key) headings drawn as vector outlines; ``progress`` gets (monographs typeset,
    of) after each one, since a full-size book takes minutes."""
    doc = pymupdf.open()
    writer = Writer(doc, folio_offset, set(reversed_pages))
    writer.header = "DƯỢC THƯ MẪU"
    writer.new_page(header=False)
    assert writer.page is not None
    writer.page.insert_text((150, 300), "DƯỢC THƯ MẪU MINH HỌA", fontname="B", fontsize=20)
    writer.page.insert_text((120, 330), SAMPLE_LABEL, fontname="R", fontsize=10)
    if front_matter:
        writer.new_page()
        writer.page.insert_text((240, 380), "PHẦN 1", fontname="B", fontsize=16)
        writer.page.insert_text((200, 410), "HƯỚNG DẪN CHUNG", fontname="B", fontsize=16)
        writer.new_page()
        for paragraph in FRONT_MATTER:
            writer.paragraph(paragraph)
    writer.new_page()
    writer.page.insert_text((240, 380), "PHẦN 2", fontname="B", fontsize=16)
    writer.page.insert_text((180, 410), "CÁC CHUYÊN LUẬN THUỐC", fontname="B", fontsize=16)
    writer.new_page()
    expected: list[Expected] = []
    for n, mono in enumerate(monos):
        use_pua = pua if pua_drugs is None or mono.drug_id in pua_drugs else None
        size = 10.0 if n % 2 == 0 else 9.5
        wrap = 2 if len(mono.title.split()) >= 4 else None
        page = writer.title(mono.title, size, wrap)
        exp = Expected(mono.title, mono.drug_id, printed_page=page + folio_offset, physical_pages=[page])
        for key, blocks in mono.sections.items():
            heading = SECTION_HEADINGS[key]
            if key in INLINE_LABEL_SECTIONS:
                writer.paragraph(_swap("\n".join(mono.prose(key)), use_pua), bold_prefix=heading + ":")
            else:
                writer.heading(heading, outlined=(mono.drug_id, key.value) in outlined)
                for block in blocks:
                    if isinstance(block, str):
                        writer.paragraph(_swap(block, use_pua))
                    elif isinstance(block, TableBlock):
                        t = block.table
                        page, grid = writer.table(t.caption, _cells(t.header), _cells(t.rows))
                        exp.tables.append(_table_truth(key.value, t.caption, page, grid))
                    elif isinstance(block, FormulaBlock):
                        f = block.formula
                        writer.formula(f.lead, f.numerator, f.denominator)
            exp.sections[key.value] = "\n".join(mono.prose(key))
        assert writer.page is not None
        exp.physical_pages.append(int(writer.page.number))
        expected.append(exp)
        if progress is not None:
            progress(n + 1, len(monos))
    if with_index:
        writer.new_page()
        writer.flush()
        writer.page.insert_text((240, 380), "PHẦN 3", fontname="B", fontsize=16)
        writer.page.insert_text((240, 410), "CHỈ MỤC", fontname="B", fontsize=16)
        writer.new_page()
        for exp in expected:
            writer.paragraph(f"{exp.title} {exp.printed_page}")
        for mono in monos:
            for alias in mono.index_aliases:
                writer.paragraph(f"{alias} xem {mono.title}")
    writer.flush()
    doc.set_metadata({"title": "Dược thư mẫu minh họa", "author": "duocthu (illustrative sample)",
                      "subject": SAMPLE_LABEL, "creator": "duocthu corpus build-pdf", "producer": "PyMuPDF",
                      "creationDate": _FIXED_DATE, "modDate": _FIXED_DATE})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return Book(path, expected, folio_offset, writer.transcriptions, tuple(reversed_pages), dict(pua or {}))


def write_companions(book: Book) -> tuple[Path, Path]:
    """``<stem>.transcriptions.json`` (the ingest worker's sidecar) and ``<stem>.ground-truth.json`` (tests)."""
    sidecar = book.path.with_name(f"{book.path.stem}.transcriptions.json")
    truth = book.path.with_name(f"{book.path.stem}.ground-truth.json")
    sidecar.write_text(json.dumps(book.sidecar(), ensure_ascii=False, indent=1), encoding="utf-8")
    truth.write_text(json.dumps(book.ground_truth(), ensure_ascii=False, indent=1), encoding="utf-8")
    return sidecar, truth


#: The sample's hazards: which pages draw the right column first, which headings are outlines, where PUA sits.
SAMPLE_REVERSED_PAGES = (5, 9, 14, 21)
SAMPLE_OUTLINED = (("paracetamol", "chong_chi_dinh"), ("metformin", "than_trong"), ("warfarin", "tuong_tac_thuoc"))
SAMPLE_PUA_DRUGS = ("amlodipin", "losartan")


def build_sample(path: Path, monos: Sequence[Monograph]) -> Book:
    """The sample formulary with every hazard of the real book, plus its sidecar and ground truth."""
    book = build_book(path, monos, reversed_pages=SAMPLE_REVERSED_PAGES, pua={PUA_CHAR: "ư"},
                      pua_drugs=SAMPLE_PUA_DRUGS, front_matter=True, outlined=SAMPLE_OUTLINED)
    write_companions(book)
    return book
