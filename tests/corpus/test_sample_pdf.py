"""The sample formulary PDF: deterministic, complete, and every layout hazard really in the PDF (read back)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pymupdf

from duocthu_cli.eval.parse import parse_report
from duocthu_corpus.monograph import load_all
from duocthu_corpus.typeset.book import SAMPLE_OUTLINED, SAMPLE_PUA_DRUGS, SAMPLE_REVERSED_PAGES, build_sample
from duocthu_corpus.typeset.synth import synthetic_monographs
from duocthu_corpus.typeset.writer import LEFT, PUA_CHAR, RIGHT
from duocthu_ingest import IngestRequest, run_ingest
from tests.fixtures.corpus import SamplePdf


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_same_input_same_bytes(sample_pdf: SamplePdf, tmp_path: Path) -> None:
    again = build_sample(tmp_path / "again.pdf", load_all())
    assert sha(again.path) == sha(sample_pdf.book.path)


def test_every_ground_truth_section_is_in_the_text_read_back(sample_pdf: SamplePdf) -> None:
    with pymupdf.open(sample_pdf.book.path) as doc:
        text = re.sub(r"\s+", " ", " ".join(page.get_text() for page in doc))
    truth = sample_pdf.truth()
    assert len(truth["monographs"]) == len(load_all())
    outlined = {(d, k) for d, k in SAMPLE_OUTLINED}
    missing = []
    for mono in truth["monographs"]:
        for key, section in mono["sections"].items():
            for paragraph in section.split("\n"):
                words = paragraph.split()[:4]  # a line's first words (wrapping cuts later ones)
                if (mono["drug_id"], key) in outlined or not words:
                    continue
                probe = " ".join(words)
                if mono["drug_id"] in SAMPLE_PUA_DRUGS:
                    probe = probe.replace("ư", PUA_CHAR)  # those monographs print ư as a private-use glyph
                if probe not in text:
                    missing.append((mono["drug_id"], key, probe))
    assert not missing, missing[:5]


def test_hazards_occur_in_the_pdf(sample_pdf: SamplePdf) -> None:
    with pymupdf.open(sample_pdf.book.path) as doc:
        # right column drawn before the left on the reversed pages
        page = doc[SAMPLE_REVERSED_PAGES[0]]
        blocks = [b for b in page.get_text("blocks") if 60 < b[1] < 800]
        xs = [b[0] for b in blocks]
        assert xs and xs[0] >= RIGHT[0] - 1 and any(x < LEFT[1] for x in xs)
        # printed folio differs from the physical page number
        header = page.get_text("text", clip=pymupdf.Rect(500, 25, 560, 45)).strip()
        assert header.isdigit() and int(header) != page.number + 1
        # PUA code points in the extracted text
        assert any(PUA_CHAR in p.get_text() for p in doc)
        # vector-outline headings: filled shapes where the sidecar says, and no text there
        runs = sample_pdf.book.transcriptions
        assert len(runs) == len(SAMPLE_OUTLINED)
        for run in runs:
            outline_page = doc[int(run["page"])]  # type: ignore[call-overload]
            clip = pymupdf.Rect(run["bbox"])  # type: ignore[arg-type]
            assert outline_page.get_text("text", clip=clip).strip() == ""
            assert any(d["fill"] is not None and clip.intersects(d["rect"]) for d in outline_page.get_drawings())
        # ruled tables and the fraction bar: drawn line segments in the body
        lines = [d for p in doc for d in p.get_drawings()
                 if d["fill"] is None and d["rect"].y0 > 60 and d["rect"].height < 1]
        assert len(lines) > 20
        # titles in two sizes, bold
        sizes = {round(s["size"], 1) for p in doc for b in p.get_text("dict")["blocks"] for ln in b.get("lines", [])
                 for s in ln["spans"] if s["text"].isupper() and len(s["text"]) > 5 and s["flags"] & 16}
        assert {10.0, 9.5} <= sizes


def test_round_trip_through_the_ingest_worker_matches_ground_truth(sample_pdf: SamplePdf) -> None:
    report = parse_report(sample_pdf.book.path, sample_pdf.ground_truth, transcriptions=sample_pdf.sidecar)
    ours: dict[str, Any] = json.loads(json.dumps(report["duocthu"], default=str))
    assert ours["released"] and ours["failed_gates"] == []
    assert ours["sections"]["rate"] == 1.0, ours["sections"]["mismatched"][:3]
    assert ours["monographs"]["recall"] == 1.0 and ours["monographs"]["wrong_printed_page"] == []


def test_without_the_sidecar_nothing_is_released(sample_pdf: SamplePdf) -> None:
    bare = run_ingest(IngestRequest(pdf=sample_pdf.book.path, residual_ink=False))
    assert not bare.released


def test_synthetic_book_is_deterministic_and_ingests(tmp_path: Path) -> None:
    from duocthu_corpus.typeset.book import build_book

    monos = synthetic_monographs(12, seed=7)
    assert [m.drug_id for m in monos] == [m.drug_id for m in synthetic_monographs(12, seed=7)]
    first = build_book(tmp_path / "a.pdf", monos)
    second = build_book(tmp_path / "b.pdf", monos)
    assert sha(first.path) == sha(second.path)
    result = run_ingest(IngestRequest(pdf=first.path, residual_ink=False))
    assert result.released, [g for g in result.gates.gates if not g.passed]
    assert {c.drug_id for c in result.chunks} == {m.drug_id for m in monos}
