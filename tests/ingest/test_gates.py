"""Each readiness gate fires on the defect it names (so a green report means something)."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from duocthu_contracts.corpus import ChunkKind
from duocthu_ingest import IngestResult
from duocthu_ingest.domain.back_index import IndexValidation
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.gates import GateInputs, evaluate
from duocthu_ingest.domain.ledger import CoverageLedger
from duocthu_ingest.domain.model import Span


def inputs(result: IngestResult, **changes) -> GateInputs:
    ledger = CoverageLedger()
    base = GateInputs(monographs=copy.deepcopy(result.monographs), blocks=copy.deepcopy(result.blocks),
                      chunks=list(result.chunks), ledger=ledger,
                      index_validation=IndexValidation(entries_in_scope=1, detected=1, matched=1))
    return replace(base, **changes)


def value(gi: GateInputs, name: str, config: IngestConfig | None = None) -> int:
    report = evaluate(gi, config or IngestConfig())
    return next(g.value for g in report.gates if g.name == name)


def edit(result: IngestResult, index: int, **update):
    chunks = list(result.chunks)
    chunks[index] = chunks[index].model_copy(update=update)
    return chunks


def test_the_unmodified_parse_passes(mini_ingest: IngestResult):
    assert evaluate(inputs(mini_ingest), IngestConfig()).passed


@pytest.mark.parametrize(("gate", "update"), [
    ("pua_chars", {"text": "Ng\ue0ffời lớn"}),
    ("replacement_chars", {"text": "liều \ufffd mg"}),
    ("control_chars", {"text": "liều \x00 mg"}),
    ("chunks_over_ceiling", {"est_tokens": 801}),
    ("chunks_without_printed_page", {"printed_page_range": (0, 0)}),
    ("wrong_schema", {"part_index": 7}),
    ("parts_without_provenance", {"source_regions": []}),
    ("physical_range_not_exact", {"source_page_range": (0, 0)}),
    ("sections_not_reassemblable", {"source_text": "Một câu không có trong sách."}),
])
def test_chunk_defects_fire_their_gate(mini_ingest: IngestResult, gate: str, update: dict[str, object]):
    index = next(i for i, c in enumerate(mini_ingest.chunks) if c.chunk_kind is ChunkKind.PROSE and c.part_index == 0)
    assert value(inputs(mini_ingest, chunks=edit(mini_ingest, index, **update)), gate) >= 1


def test_duplicates_and_descriptor_count(mini_ingest: IngestResult):
    chunks = list(mini_ingest.chunks)
    assert value(inputs(mini_ingest, chunks=[*chunks, chunks[0]]), "duplicate_ids") == 1
    assert value(inputs(mini_ingest, chunks=[*chunks, chunks[0]]), "non_unique_source_text") == 1
    no_descriptors = [c for c in chunks if c.chunk_kind is not ChunkKind.BLOCK_DESCRIPTOR]
    assert value(inputs(mini_ingest, chunks=no_descriptors), "descriptor_count_mismatch") == 1  # the formula's
    no_rows = [c for c in chunks if c.chunk_kind is not ChunkKind.TABLE_ROW]  # the released table vanished
    assert value(inputs(mini_ingest, chunks=no_rows), "released_tables_without_rows") == 1


def test_quarantine_defects(mini_ingest: IngestResult):
    flagged = [i for i, c in enumerate(mini_ingest.chunks)
               if c.has_quarantined_content and c.chunk_kind is ChunkKind.PROSE]
    chunks = edit(mini_ingest, flagged[0], has_quarantined_content=False)
    assert value(inputs(mini_ingest, chunks=chunks), "unflagged_quarantine_blocks") >= 1
    table = next(b for b in mini_ingest.blocks.values() if b.kind.value == "table")
    prose = next(i for i, c in enumerate(mini_ingest.chunks)
                 if c.drug_id == table.drug_id and c.chunk_kind is ChunkKind.PROSE)
    leaked_line = max(table.text.split("\n"), key=len)
    chunks = edit(mini_ingest, prose, text=mini_ingest.chunks[prose].text + " " + leaked_line)
    assert value(inputs(mini_ingest, chunks=chunks), "block_text_leaked") >= 1


def test_empty_section_and_ledger(mini_ingest: IngestResult):
    gi = inputs(mini_ingest)
    gi.monographs[0].sections[0].text = ""
    assert value(gi, "empty_sections") == 1
    gi = inputs(mini_ingest)
    gi.ledger.register([Span("p0_b0_l0_s0", 0, 0, 0, 0, (0, 0, 1, 1), "x", "f", 9.0, False)])
    assert value(gi, "ledger_unassigned") == 1


def test_back_index_limits_follow_the_configured_minimum(mini_ingest: IngestResult):
    validation = IndexValidation(entries_in_scope=100, detected=96, matched=96, missing=["A", "B", "C", "D"])
    gi = inputs(mini_ingest, index_validation=validation)
    strict = evaluate(gi, IngestConfig())
    assert not strict.passed
    relaxed = evaluate(gi, IngestConfig(min_index_recall=0.96))
    assert next(g for g in relaxed.gates if g.name == "back_index_missing").passed
