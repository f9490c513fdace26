"""``duocthu eval routing``: which (drug, section) does a question ask about — four methods side by side.

Dense-only, sparse-only and hybrid search over the whole index (hit@k: one of
the top k chunks is from the right drug and section), against the section
router (the understanding stage's frame sent to route A: its hit@1 is
whether the frame names the right drug and section).  Questions: 20 per main
section generated from the corpus structure, half typed without diacritics,
plus a hand-written set (typos, trade names, colloquial cues).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from duocthu_cli.stack.sample_index import SampleIndex
from duocthu_contracts.corpus import DrugCatalog
from duocthu_contracts.sections import SectionKey
from duocthu_retrieval import ScoredChunk
from duocthu_runtime import JobProgress
from duocthu_text.vietnamese import fold
from duocthu_understanding import DrugMatcher, understand

PER_SECTION = 20
MAIN_SECTIONS: dict[SectionKey, tuple[str, ...]] = {
    SectionKey.CHI_DINH: ("{d} được chỉ định trong những bệnh nào?", "{d} dùng để điều trị gì?"),
    SectionKey.CHONG_CHI_DINH: ("Chống chỉ định của {d}?", "Khi nào không được dùng {d}?"),
    SectionKey.THAN_TRONG: ("Cần thận trọng gì khi dùng {d}?",),
    SectionKey.THOI_KY_MANG_THAI: ("Phụ nữ có thai dùng {d} được không?",),
    SectionKey.THOI_KY_CHO_CON_BU: ("Đang cho con bú có dùng {d} được không?",),
    SectionKey.TAC_DUNG_KHONG_MONG_MUON: ("Tác dụng không mong muốn của {d}?", "{d} có tác dụng phụ gì?"),
    SectionKey.LIEU_LUONG_VA_CACH_DUNG: ("Liều dùng {d} cho người lớn?", "Cách dùng {d} như thế nào?"),
    SectionKey.TUONG_TAC_THUOC: ("{d} tương tác với những thuốc nào?",),
    SectionKey.QUA_LIEU_VA_XU_TRI: ("Xử trí quá liều {d}?",),
    SectionKey.DO_ON_DINH_VA_BAO_QUAN: ("Bảo quản {d} như thế nào?",),
}
METHODS = ("dense", "sparse", "hybrid", "router")


@dataclass(frozen=True)
class RoutingQuestion:
    text: str
    drug_id: str
    section_key: SectionKey
    kind: str  # "generated" or "hand-written"


def generated_questions(catalog: DrugCatalog) -> list[RoutingQuestion]:
    out: list[RoutingQuestion] = []
    entries = sorted(catalog.entries, key=lambda e: e.drug_id)
    for key, templates in MAIN_SECTIONS.items():
        having = [e for e in entries if key in e.section_keys]
        for i in range(min(PER_SECTION, len(having) * len(templates) * 2)):
            entry = having[i % len(having)]
            text = templates[(i // len(having)) % len(templates)].format(d=entry.drug_name.lower())
            out.append(RoutingQuestion(fold(text) if i % 2 else text, entry.drug_id, key, "generated"))
    return out


def hand_written(path: Path | None = None) -> list[RoutingQuestion]:
    source = path or Path(__file__).parent / "data" / "routing_handwritten.jsonl"
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [RoutingQuestion(r["query"], r["drug_id"], SectionKey(r["section_key"]), "hand-written") for r in rows]


def rank(hits: Sequence[ScoredChunk], q: RoutingQuestion) -> int | None:
    return next((i for i, h in enumerate(hits, 1) if h.chunk.drug_id == q.drug_id
                 and h.chunk.section_key is q.section_key), None)


async def evaluate(built: SampleIndex, questions: Sequence[RoutingQuestion]) -> dict[str, dict[str, dict[str, float]]]:
    catalog = built.result.catalog
    matcher = DrugMatcher(catalog)
    ranks: dict[str, dict[str, list[int | None]]] = {m: {"generated": [], "hand-written": []} for m in METHODS}
    with JobProgress("eval routing", len(questions), unit="questions") as progress:
        for q in progress.track(questions):
            await _rank_one(built, catalog, matcher, q, ranks)
    report: dict[str, dict[str, dict[str, float]]] = {}
    for method, by_kind in ranks.items():
        report[method] = {}
        for kind, values in by_kind.items():
            n = len(values) or 1
            report[method][kind] = {f"hit@{k}": sum(1 for r in values if r is not None and r <= k) / n
                                    for k in (1, 3, 5)} | {"n": float(len(values))}
    return report


async def _rank_one(built: SampleIndex, catalog: DrugCatalog, matcher: DrugMatcher, q: RoutingQuestion,
                    ranks: dict[str, dict[str, list[int | None]]]) -> None:
    """Where each search method and the router put one question's right section."""
    vector = built.embedder.embed_query(q.text)
    sparse = built.sparse.encode_query(q.text)
    ranks["dense"][q.kind].append(rank(await built.index.dense_search(vector, limit=5), q))
    ranks["sparse"][q.kind].append(rank(await built.index.sparse_search(sparse, limit=5), q))
    ranks["hybrid"][q.kind].append(rank(await built.index.hybrid_search(vector, sparse, limit=5), q))
    frame = understand(q.text, catalog, matcher).frame
    right = [d.drug_id for d in frame.drugs][:1] == [q.drug_id] and frame.section_key is q.section_key
    ranks["router"][q.kind].append(1 if right else None)
