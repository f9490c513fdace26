"""Parser evaluation against a ground truth, side by side with a pymupdf4llm baseline (``duocthu eval parse``).

Only evaluation reads the ground truth; the pipeline never does.  The
measure is the seed's strictest one that tolerates layout: every section's
text must equal the ground truth character for character after whitespace
normalisation.  The baseline is what a generic PDF-to-Markdown step gives:
pymupdf4llm's Markdown of the same PDF, markup stripped, split on the same
monograph titles and section headings.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duocthu_contracts.sections import INLINE_LABEL_SECTIONS, SECTION_HEADINGS, SectionKey
from duocthu_ingest import IngestConfig, IngestRequest, IngestResult, heading_key, run_ingest, ws_normalize

SectionTexts = dict[tuple[str, str], str]


@dataclass(frozen=True)
class TruthMonograph:
    drug_id: str
    title: str
    sections: dict[str, str]
    printed_page: int | None = None


def _section_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key in ("text", "prose"):
            if key in value:
                return _section_text(value[key])
    if isinstance(value, list):
        return "\n".join(v for v in value if isinstance(v, str))
    raise ValueError(f"cannot read a section text from {type(value).__name__}")


def parse_ground_truth(data: Any) -> list[TruthMonograph]:
    """Read the typesetter's ground truth: ``{"monographs": [{drug_id, title, sections: {key: text}}]}``."""
    items = data["monographs"] if isinstance(data, Mapping) else data
    if isinstance(items, Mapping):
        items = [{"drug_id": k, **v} for k, v in items.items()]
    out: list[TruthMonograph] = []
    for item in items:
        sections = {str(k): _section_text(v) for k, v in item["sections"].items()}
        pages = item.get("printed_page_range") or item.get("printed_pages")
        printed = item.get("printed_page") or (pages[0] if pages else None)
        out.append(TruthMonograph(item["drug_id"], item.get("title") or item.get("drug_name", ""), sections,
                                  int(printed) if printed is not None else None))
    return out


def load_ground_truth(path: Path) -> list[TruthMonograph]:
    return parse_ground_truth(json.loads(path.read_text(encoding="utf-8")))


@dataclass
class SectionScore:
    total: int = 0
    exact: int = 0
    missing: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.exact / self.total if self.total else 0.0

    def to_report(self) -> dict[str, object]:
        return {"sections": self.total, "exact": self.exact, "rate": round(self.rate, 4),
                "missing": self.missing[:30], "mismatched": self.mismatched[:30], "extra": self.extra[:30]}


def compare_sections(found: SectionTexts, truth: Sequence[TruthMonograph]) -> SectionScore:
    score = SectionScore()
    expected = {(m.drug_id, k): t for m in truth for k, t in m.sections.items()}
    score.total = len(expected)
    for key, text in expected.items():
        name = f"{key[0]}/{key[1]}"
        if key not in found:
            score.missing.append(name)
        elif ws_normalize(found[key]) == ws_normalize(text):
            score.exact += 1
        else:
            score.mismatched.append(name)
    score.extra = [f"{d}/{k}" for d, k in found if (d, k) not in expected]
    return score


def our_sections(result: IngestResult) -> SectionTexts:
    return {(m.drug_id, s.key.value): s.text for m in result.monographs for s in m.sections}


_MD_MARKUP = re.compile(r"\*\*|__|(?<!\w)_(?!\w)|^#+\s*|`", re.MULTILINE)


def markdown_lines(markdown: str) -> list[str]:
    return [ws_normalize(_MD_MARKUP.sub("", line)) for line in markdown.splitlines()]


def split_markdown(markdown: str, truth: Sequence[TruthMonograph], config: IngestConfig) -> SectionTexts:
    """The baseline's sections: text between the same titles and headings, located in the Markdown lines."""
    inline = re.compile("(?=(?:" + "|".join(re.escape(SECTION_HEADINGS[k]) for k in INLINE_LABEL_SECTIONS) + "):)")
    lines = [piece.strip() for ln in markdown_lines(markdown) if ln for piece in inline.split(ln) if piece.strip()]
    titles = {heading_key(m.title): m.drug_id for m in truth}
    headings = dict(config.headings)
    found: SectionTexts = {}
    drug: str | None = None
    key: str | None = None
    buffer: list[str] = []

    def flush() -> None:
        if drug is not None and key is not None:
            found[(drug, key)] = "\n".join(buffer).strip()

    for line in lines:
        if heading_key(line) in titles:
            flush()
            drug, key, buffer = titles[heading_key(line)], None, []
            continue
        match = _heading_prefix(line, headings)
        if match is not None and drug is not None:
            flush()
            key, rest = match
            buffer = [rest] if rest else []
            continue
        if key is not None:
            buffer.append(line)
    flush()
    return found


def _heading_prefix(line: str, headings: Mapping[str, SectionKey]) -> tuple[str, str] | None:
    """A line that is a heading ("Chỉ định") or starts with an inline one ("Tên chung quốc tế: X")."""
    if heading_key(line) in headings:
        return headings[heading_key(line)].value, ""
    head, sep, rest = line.partition(":")
    if sep and heading_key(head) in headings:
        return headings[heading_key(head)].value, rest.strip()
    return None


def pymupdf4llm_sections(pdf: Path, truth: Sequence[TruthMonograph], config: IngestConfig) -> tuple[SectionTexts, float]:
    import pymupdf4llm

    t0 = time.perf_counter()
    markdown = pymupdf4llm.to_markdown(str(pdf), show_progress=False)
    return split_markdown(markdown, truth, config), time.perf_counter() - t0


def monograph_scores(result: IngestResult, truth: Sequence[TruthMonograph]) -> dict[str, object]:
    expected = {m.drug_id for m in truth}
    detected = [m.drug_id for m in result.monographs]
    hits = len(expected & set(detected))
    pages = {m.drug_id: m.printed_page for m in truth}
    wrong_pages = [m.drug_id for m in result.monographs
                   if pages.get(m.drug_id) is not None
                   and result.page_map.printed_page(m.title_page) != pages[m.drug_id]]
    return {"expected": len(expected), "detected": len(detected), "matched": hits,
            "recall": round(hits / len(expected), 4) if expected else 0.0,
            "precision": round(hits / len(detected), 4) if detected else 0.0,
            "missing": sorted(expected - set(detected)), "unexpected": sorted(set(detected) - expected),
            "wrong_printed_page": wrong_pages}


def parse_report(pdf: Path, truth_path: Path, *, transcriptions: Path | None = None,
                 config: IngestConfig | None = None, baseline: bool = True,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, object]:
    """Our parse vs the ground truth, and (optionally) pymupdf4llm split on the same headings, in one run."""
    config = config or IngestConfig()
    truth = load_ground_truth(truth_path)
    t0 = time.perf_counter()
    result = run_ingest(IngestRequest(pdf=pdf, transcriptions=transcriptions, config=config), progress)
    ours_s = time.perf_counter() - t0
    report: dict[str, object] = {
        "pdf": str(pdf), "pages": result.page_count,
        "duocthu": {"sections": compare_sections(our_sections(result), truth).to_report(),
                    "monographs": monograph_scores(result, truth), "released": result.released,
                    "failed_gates": [g.name for g in result.gates.failed()], "seconds": round(ours_s, 2)},
    }
    if baseline:
        found, seconds = pymupdf4llm_sections(pdf, truth, config)
        report["pymupdf4llm"] = {"sections": compare_sections(found, truth).to_report(), "seconds": round(seconds, 2),
                                 "monographs_located": len({d for d, _ in found})}
    return report
