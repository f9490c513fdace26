"""The whole parse on a small built book: sections round-trip, monographs, blocks, pages, gates."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf

from duocthu_contracts.corpus import BlockKind, ChunkKind
from duocthu_ingest import IngestRequest, IngestResult, run_ingest
from duocthu_ingest.domain.chunker import records_sha256
from duocthu_ingest.domain.model import SpanState
from duocthu_ingest.domain.text import ws_normalize
from tests.ingest.minibook import PUA_CHAR, Book, build_book


def sections_of(result: IngestResult) -> dict[tuple[str, str], str]:
    return {(m.drug_id, s.key.value): s.text for m in result.monographs for s in m.sections}


def test_every_section_round_trips_and_every_gate_passes(mini_book: Book, mini_ingest: IngestResult):
    got = sections_of(mini_ingest)
    expected = {(e.drug_id, k): t for e in mini_book.expected for k, t in e.sections.items()}
    assert set(got) == set(expected)
    mismatched = [k for k, t in expected.items() if ws_normalize(got[k]) != ws_normalize(t)]
    assert mismatched == []
    assert mini_ingest.gates.failed() == []
    assert mini_ingest.released


def test_titles_in_two_sizes_wrapped_and_mixed_case_are_all_found(mini_book: Book, mini_ingest: IngestResult):
    assert [m.drug_name for m in mini_ingest.monographs] == [e.title for e in mini_book.expected]
    assert "THUỐC MẪU HMG-CoA" in [m.drug_name for m in mini_ingest.monographs]  # wrapped, mixed case
    report = mini_ingest.report["back_index"]
    assert report["recall"] == 1.0 and report["precision"] == 1.0  # type: ignore[index]


def test_printed_pages_come_from_the_folios_not_the_physical_index(mini_book: Book, mini_ingest: IngestResult):
    for mono, exp in zip(mini_ingest.monographs, mini_book.expected, strict=True):
        assert mini_ingest.page_map.printed_page(mono.title_page) == exp.printed_page
        assert exp.printed_page == mono.title_page + mini_book.folio_offset
    for chunk in mini_ingest.chunks:
        assert chunk.printed_page_range[0] == chunk.source_page_range[0] + mini_book.folio_offset


def test_formula_is_quarantined_and_the_agreed_table_released_as_rows(mini_ingest: IngestResult):
    kinds = sorted((b.kind, b.drug_id) for b in mini_ingest.blocks.values())
    assert kinds == [(BlockKind.FORMULA, "thuoc_mau_hmg_coa"), (BlockKind.TABLE, "gentamicin")]
    prose = " ".join(c.text for c in mini_ingest.chunks if c.chunk_kind is ChunkKind.PROSE)
    assert "creatinin huyết thanh (mg/100 ml)" not in prose  # the fraction never reaches prose
    assert "Khoảng cách giữa các lần" not in prose  # nor the table's cells
    descriptors = [c for c in mini_ingest.chunks if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR]
    assert len(descriptors) == 1 and all(c.attachments and c.has_quarantined_content for c in descriptors)
    assert descriptors[0].drug_id == "thuoc_mau_hmg_coa"  # the fraction stays a crop
    rows = [c for c in mini_ingest.chunks if c.chunk_kind is ChunkKind.TABLE_ROW]  # both extractors agreed (issue 19)
    assert rows and {c.drug_id for c in rows} == {"gentamicin"}
    assert all(c.text.startswith("Bảng") and not c.has_quarantined_content and c.source_regions for c in rows)
    flagged = {(c.drug_id, c.section_key) for c in mini_ingest.chunks if c.has_quarantined_content}
    assert flagged == {("thuoc_mau_hmg_coa", "lieu_luong_va_cach_dung")}


def test_ledger_names_every_span(mini_ingest: IngestResult):
    ledger = mini_ingest.report["ledger"]
    assert ledger["unassigned"]["spans"] == 0  # type: ignore[index]
    for state in (SpanState.NORMALIZED_TEXT, SpanState.HEADING, SpanState.BOILERPLATE_EXCLUDED,
                  SpanState.QUARANTINED, SpanState.OUT_OF_SCOPE, SpanState.STRUCTURAL_EXCLUDED):
        assert ledger[state.value]["spans"] > 0, state  # type: ignore[index]


def test_right_column_drawn_first_does_not_change_the_text(tmp_path: Path, mini_book: Book,
                                                           mini_ingest: IngestResult):
    flipped = build_book(tmp_path / "flipped.pdf", reversed_pages=(2, 3, 4, 5))
    with pymupdf.open(flipped.path) as doc:  # the hazard is really there: raw order starts in the right column
        blocks = [b["bbox"] for b in doc[3].get_text("dict")["blocks"] if 60 < b["bbox"][1] < 800]
        assert blocks[0][0] > doc[3].rect.width / 2
    result = run_ingest(IngestRequest(pdf=flipped.path))
    assert sections_of(result) == sections_of(mini_ingest)


def test_the_parse_is_deterministic(mini_book: Book, mini_ingest: IngestResult):
    again = run_ingest(IngestRequest(pdf=mini_book.path, residual_ink=False))
    assert records_sha256(again.chunks) == mini_ingest.corpus_sha256


def test_page_range_jobs_split_the_book_without_loss_or_overlap(mini_book: Book, mini_ingest: IngestResult):
    parts = [run_ingest(IngestRequest(pdf=mini_book.path, page_range=r)) for r in ((0, 2), (3, 3), (4, 10))]
    drugs = [m.drug_id for p in parts for m in p.monographs]
    assert drugs == [m.drug_id for m in mini_ingest.monographs]
    assert [c for p in parts for c in p.chunks] == mini_ingest.chunks
    assert all(p.released for p in parts), [p.gates.failed() for p in parts]


def test_pua_glyphs_are_repaired_from_the_transcription_file(tmp_path: Path, mini_ingest: IngestResult):
    book = build_book(tmp_path / "pua.pdf", pua={PUA_CHAR: "ư"})
    bare = run_ingest(IngestRequest(pdf=book.path, residual_ink=False))
    pua = next(g for g in bare.gates.gates if g.name == "pua_chars")
    assert pua.value > 0 and not bare.released  # without the transcription the PUA gate blocks the release
    sidecar = tmp_path / "pua.transcriptions.json"
    sidecar.write_text('{"runs": [], "pua": {"U+E0FF": "ư"}}', encoding="utf-8")
    repaired = run_ingest(IngestRequest(pdf=book.path, transcriptions=sidecar, residual_ink=False))
    assert repaired.released, repaired.gates.failed()
    assert sections_of(repaired) == sections_of(mini_ingest)


def test_headings_drawn_as_outlines_are_restored_from_the_verified_transcription(tmp_path: Path,
                                                                                 mini_ingest: IngestResult):
    outlined = [("gentamicin", "chi_dinh"), ("warfarin", "tuong_tac_thuoc")]
    book = build_book(tmp_path / "outlined.pdf", outlined=outlined)
    assert len(book.transcriptions) == 2
    bare = run_ingest(IngestRequest(pdf=book.path))
    assert not bare.released
    failed = {g.name for g in bare.gates.failed()}
    assert "outline_runs_not_merged" in failed
    sidecar = tmp_path / "outlined.transcriptions.json"
    sidecar.write_text(json.dumps({"runs": book.transcriptions}, ensure_ascii=False), encoding="utf-8")
    repaired = run_ingest(IngestRequest(pdf=book.path, transcriptions=sidecar))
    assert repaired.released, repaired.gates.failed()
    assert sections_of(repaired) == sections_of(mini_ingest)
    ink = repaired.report["residual_ink"]["regions"]  # type: ignore[index]
    assert ink.get("text_as_vector_outline", 0) >= 2  # the outlines are seen, named, and accounted for
    assert repaired.report["repair"]["outline_runs_transcribed"] == 2  # type: ignore[index]
