"""Benchmark questions from the corpus structure, each with the (drug, section) it asks about."""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_contracts.sections import SectionKey

TEMPLATES: tuple[tuple[str, SectionKey], ...] = (
    ("Chống chỉ định của {d}?", SectionKey.CHONG_CHI_DINH),
    ("Liều {d} cho người lớn?", SectionKey.LIEU_LUONG_VA_CACH_DUNG),
    ("{d} có tác dụng phụ gì?", SectionKey.TAC_DUNG_KHONG_MONG_MUON),
    ("Bảo quản {d} như thế nào?", SectionKey.DO_ON_DINH_VA_BAO_QUAN),
    ("{d} tương tác với những thuốc nào?", SectionKey.TUONG_TAC_THUOC),
    ("Xử trí quá liều {d}?", SectionKey.QUA_LIEU_VA_XU_TRI),
)


@dataclass(frozen=True)
class BenchQuestion:
    text: str
    drug_id: str
    section_key: SectionKey


def route_a_questions(drugs: list[tuple[str, str, set[str]]]) -> list[BenchQuestion]:
    """``drugs``: (drug_id, printed title, section keys present)."""
    out: list[BenchQuestion] = []
    for drug_id, title, keys in drugs:
        for template, key in TEMPLATES:
            if key.value in keys:
                out.append(BenchQuestion(template.format(d=title.lower()), drug_id, key))
    return out
