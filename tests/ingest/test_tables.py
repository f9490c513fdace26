"""Issue 19: a table leaves quarantine only when two independent extractors agree in every cell.

Read on real PDFs from the corpus typesetter: every sample table is released
with the cells the source YAML holds; a table corrupted on the page (a ruling
removed, a row's text shifted, two cells swapped, a stray ruling) is never
released, and the gates report says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from duocthu_corpus.monograph import load_all
from duocthu_corpus.typeset import writer as writer_module
from duocthu_corpus.typeset.book import build_book
from duocthu_corpus.typeset.tables import TableLayout
from duocthu_ingest import IngestRequest, IngestResult, run_ingest
from duocthu_ingest.domain.model import QuarantineBlock
from duocthu_ingest.domain.tables import RawCell, first_difference, reconcile, resolve
from tests.fixtures.corpus import SamplePdf


def _tables(result: IngestResult) -> list[QuarantineBlock]:
    return [b for b in result.blocks.values() if b.kind.value == "table"]


def test_every_sample_table_is_released_with_the_source_cells(sample_pdf: SamplePdf,
                                                             sample_ingest: IngestResult) -> None:
    truth = {t["caption"]: t for m in sample_pdf.truth()["monographs"] for t in m["tables"]}
    tables = _tables(sample_ingest)
    assert len(tables) == len(truth) >= 7
    for block in tables:
        assert block.released, (block.block_id, block.table.reasons if block.table else None)
        assert block.table is not None and block.table.grid is not None
        source = truth[block.table.caption]
        expected = resolve([RawCell(c["row"], c["col"], c["rowspan"], c["colspan"], tuple(c["bbox"]), c["text"])
                            for c in source["cells"]])
        assert first_difference(block.table.grid, expected) is None, block.table.caption
        assert block.table.grid.header_rows == source["header_rows"]
    gate = next(g for g in sample_ingest.gates.gates if g.name == "table_cells_disagree")
    assert gate.value == 0 and gate.passed


def test_header_paths_and_row_labels_resolve_spans() -> None:
    cells = [RawCell(0, 0, 2, 1, (0, 0, 1, 1), "eGFR"), RawCell(0, 1, 1, 2, (0, 0, 1, 1), "Metformin"),
             RawCell(1, 1, 1, 1, (0, 0, 1, 1), "Liều  khởi\nđầu"), RawCell(1, 2, 1, 1, (0, 0, 1, 1), "Tối đa"),
             RawCell(2, 0, 1, 1, (0, 0, 1, 1), "< 30"), RawCell(2, 1, 1, 2, (0, 0, 1, 1), "Chống chỉ định")]
    grid = resolve(cells)
    assert grid.header_rows == 2
    assert grid.header_path(2) == ["Metformin", "Tối đa"]
    assert grid.body_rows() == [[("eGFR", "< 30"), ("Metformin › Liều khởi đầu, Tối đa", "Chống chỉ định")]]


def test_reconcile_refuses_a_missing_caption_and_any_differing_cell() -> None:
    a = [RawCell(0, 0, 1, 1, (0, 0, 1, 1), "Clcr"), RawCell(0, 1, 1, 1, (0, 0, 1, 1), "Liều"),
         RawCell(1, 0, 1, 1, (0, 0, 1, 1), "> 50"), RawCell(1, 1, 1, 1, (0, 0, 1, 1), "100 mg")]
    b = [*a[:3], RawCell(1, 1, 1, 1, (0, 0, 1, 1), "10 mg")]
    assert reconcile("Bảng 1. Liều", a, a).released
    assert not reconcile("", a, a).released
    verdict = reconcile("Bảng 1. Liều", a, b)
    assert not verdict.released and "r1c1: '100 mg'" in verdict.reasons[0]
    assert not reconcile("Bảng 1. Liều", a, "the outer frame is not closed").released


Corrupt = Callable[[TableLayout], None]


def _cell(grid: TableLayout, row: int, col: int) -> Any:
    return next(c for c in grid.cells if c.row == row and c.col == col)


def _drop_ruling(grid: TableLayout) -> None:
    x = grid.cols[2]  # the rule between "Liều khởi đầu" and "Liều tối đa mỗi ngày" in the body
    grid.segments = [s for s in grid.segments if not s[0] == s[2] == x]


def _shift_row(grid: TableLayout) -> None:
    for cell in grid.cells:
        if cell.row == 4:
            x0, y0, x1, y1 = cell.bbox
            cell.bbox = (x0, y0 + 6.0, x1, y1 + 6.0)


def _swap_cells(grid: TableLayout) -> None:
    a, b = _cell(grid, 4, 1), _cell(grid, 4, 2)  # "500 mg hoặc 850 mg × 1 lần/ngày" <-> "2.000 mg"
    a.lines, b.lines = b.lines, a.lines


def _stray_ruling(grid: TableLayout) -> None:
    x0, y0, x1, y1 = _cell(grid, 2, 1).bbox  # through "Liều thông thường"
    grid.segments.append(((x0 + x1) / 2, y0, (x0 + x1) / 2, y1))


def _metformin_book(path: Path, corrupt: Corrupt | None, monkeypatch: pytest.MonkeyPatch) -> IngestResult:
    real = writer_module.layout  # type: ignore[attr-defined]  # the name the writer calls

    def corrupted(*args: Any, **kwargs: Any) -> TableLayout:
        grid = real(*args, **kwargs)
        if corrupt is not None and kwargs.get("top", 0.0) != 0.0:  # the real placement, not the trial fit
            corrupt(grid)
        return grid

    monkeypatch.setattr(writer_module, "layout", corrupted)
    book = build_book(path, [m for m in load_all() if m.drug_id == "metformin"])
    return run_ingest(IngestRequest(pdf=book.path, residual_ink=False))


@pytest.fixture
def metformin_path(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "metformin.pdf"


def test_the_uncorrupted_table_is_released(metformin_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (block,) = _tables(_metformin_book(metformin_path, None, monkeypatch))
    assert block.released


@pytest.mark.parametrize("corrupt", [_drop_ruling, _shift_row, _swap_cells, _stray_ruling],
                         ids=["ruling removed", "row shifted", "cells swapped", "stray ruling"])
def test_a_corrupted_table_stays_quarantined(metformin_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             corrupt: Corrupt) -> None:
    result = _metformin_book(metformin_path, corrupt, monkeypatch)
    (block,) = _tables(result)
    assert not block.released
    gate = next(g for g in result.gates.gates if g.name == "table_cells_disagree")
    assert gate.value == 1 and gate.detail[0].startswith(block.block_id)
