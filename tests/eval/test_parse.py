"""The parse report: our section recovery against ground truth, side by side with pymupdf4llm."""

from __future__ import annotations

import json
from pathlib import Path

from duocthu_cli.eval.parse import parse_report
from tests.ingest.minibook import Book


def test_parse_report_scores_us_and_the_baseline_on_the_same_headings(mini_book: Book, tmp_path: Path):
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"monographs": [
        {"drug_id": e.drug_id, "title": e.title, "sections": e.sections, "printed_page": e.printed_page}
        for e in mini_book.expected]}, ensure_ascii=False), encoding="utf-8")
    report = parse_report(mini_book.path, truth)
    ours = report["duocthu"]
    assert ours["sections"]["rate"] == 1.0 and ours["sections"]["sections"] == 84  # type: ignore[index]
    assert ours["monographs"]["recall"] == 1.0 and ours["monographs"]["precision"] == 1.0  # type: ignore[index]
    assert ours["monographs"]["wrong_printed_page"] == []  # type: ignore[index]
    baseline = report["pymupdf4llm"]["sections"]  # type: ignore[index]
    assert baseline["sections"] == 84
    # the page that draws its right column first, and the flattened table and fraction, cost the baseline sections
    assert baseline["exact"] < 84 and "thuoc_mau_hmg_coa/lieu_luong_va_cach_dung" in baseline["mismatched"]
