"""Benchmark questions from the corpus structure, each with the (drug, section) it asks about."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

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


def truth_drugs(truth_path: Path) -> list[tuple[str, str, set[str]]]:
    """(drug_id, printed title, section keys) of every monograph in a book's ground truth."""
    data = json.loads(truth_path.read_text(encoding="utf-8"))
    return [(m["drug_id"], m["title"], set(m["sections"])) for m in data["monographs"]]


def condition_questions(truth_path: Path, limit: int) -> list[str]:
    """Condition-to-drug questions (route C: phrase match and hybrid search over every indication).

    The condition is the first clause of a monograph's first indication line
    (up to a comma, colon, semicolon or full stop), so every question names a
    condition the book prints; distinct conditions only, in book order.
    """
    data = json.loads(truth_path.read_text(encoding="utf-8"))
    seen: dict[str, None] = {}
    for monograph in data["monographs"]:
        first = monograph["sections"].get(SectionKey.CHI_DINH.value, "").strip().split("\n")[0]
        condition = re.sub(r"^(?:điều trị|Điều trị)\s+", "", re.split(r"[,.;:(]", first)[0].strip())
        if 2 <= len(condition.split()) <= 8:
            seen.setdefault(condition[0].lower() + condition[1:], None)
        if len(seen) >= limit:
            break
    return [f"Thuốc nào điều trị {c}?" for c in seen]
