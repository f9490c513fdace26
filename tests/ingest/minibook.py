"""Small two-column formulary PDFs for targeted layout hazards, built with the corpus package's typesetter.

The sample formulary PDF (``duocthu corpus build-pdf``) is the main test
input; these books let a test control each hazard exactly (a page that draws
its right column first, a folio offset, a ruled table with a caption, a
fraction bar, PUA glyphs, a title in two sizes that wraps) over the index
area's fixed test monographs plus one formula monograph defined here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from duocthu_corpus.monograph import Monograph, load_all
from duocthu_corpus.typeset import book as typeset
from duocthu_corpus.typeset.book import Book, Expected
from duocthu_corpus.typeset.writer import PUA_CHAR

__all__ = ["PUA_CHAR", "Book", "Expected", "build_book", "monographs"]

MONOGRAPHS = Path(__file__).resolve().parents[1] / "index" / "data" / "monographs"


def _formula_monograph() -> Monograph:
    return Monograph.model_validate({
        "drug_id": "thuoc_mau_hmg_coa", "title": "THUỐC MẪU HMG-CoA", "index_aliases": [],
        "sections": {
            "ten_chung_quoc_te": "Thuốc mẫu.",
            "chi_dinh": ["Dùng để kiểm tra bộ tách công thức hai chiều trong chuyên luận mẫu."],
            "lieu_luong_va_cach_dung": [
                "Người lớn: 10 mg mỗi ngày, uống một lần.",
                {"formula": {"lead": "Clcr (ml/phút) =", "numerator": "(140 – tuổi) × cân nặng (kg)",
                             "denominator": "72 × creatinin huyết thanh (mg/100 ml)"}},
                "Ở nữ, nhân kết quả với 0,85.",
            ],
        },
    })


def monographs() -> list[Monograph]:
    monos = [*load_all(MONOGRAPHS), _formula_monograph()]
    return sorted(monos, key=lambda m: m.drug_id)


def build_book(path: Path, *, folio_offset: int = 96, reversed_pages: Sequence[int] = (3,),
               pua: dict[str, str] | None = None, with_index: bool = True,
               monos: Sequence[Monograph] | None = None,
               outlined: Sequence[tuple[str, str]] = ()) -> Book:
    """``outlined``: (drug_id, section key) whose heading is drawn as vector outlines."""
    return typeset.build_book(path, monos if monos is not None else monographs(), folio_offset=folio_offset,
                              reversed_pages=reversed_pages, pua=pua, with_index=with_index, outlined=outlined)
