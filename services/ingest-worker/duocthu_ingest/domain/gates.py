"""Readiness gates (seed 003 §18.5): named counters that must all be within their limit to release.

Every gate counts a way the corpus could mislead a clinician: a glyph that
is not the printed character, a chunk without a printed page to cite, table
text flattened into prose, a section that cannot be rebuilt from its
chunks, a monograph the book's own index lists but the parser missed.  The
limit is 0 for all of them except back-index recall/precision, whose limit
follows the configured minimum (1.0 by default, i.e. also 0).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError

from duocthu_contracts.corpus import ChunkKind, ChunkRecord
from duocthu_ingest.domain.back_index import IndexValidation
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.ledger import CoverageLedger
from duocthu_ingest.domain.model import Monograph, QuarantineBlock, Section
from duocthu_ingest.domain.text import REPLACEMENT_CHAR, count_control, count_pua, ws_normalize
from duocthu_text.reassembly import reassemble

#: Block lines at least this long (normalised) must not occur in any prose chunk of the same drug.
LEAK_MIN_CHARS = 24


@dataclass(frozen=True)
class Gate:
    name: str
    value: int
    limit: int = 0
    detail: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.value <= self.limit


@dataclass
class GateReport:
    gates: list[Gate]

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)

    def counters(self) -> dict[str, int]:
        return {g.name: g.value for g in self.gates}

    def failed(self) -> list[Gate]:
        return [g for g in self.gates if not g.passed]

    def to_report(self) -> list[dict[str, object]]:
        return [{"gate": g.name, "value": g.value, "limit": g.limit, "passed": g.passed, "detail": g.detail[:20]}
                for g in self.gates]


@dataclass
class GateInputs:
    monographs: Sequence[Monograph]
    blocks: Mapping[str, QuarantineBlock]
    chunks: Sequence[ChunkRecord]
    ledger: CoverageLedger
    index_validation: IndexValidation
    unresolved_aliases: Sequence[str] = ()
    ambiguous_aliases: Sequence[str] = ()
    residual_unclassified: Sequence[str] = ()
    outline_runs_unmerged: Sequence[str] = ()
    unmapped_headings: Sequence[str] = ()
    text_outside_sections: Sequence[str] = ()
    unassigned_blocks: Sequence[str] = ()


def _gate(name: str, items: Sequence[str], limit: int = 0) -> Gate:
    return Gate(name, len(items), limit, list(items))


def evaluate(inputs: GateInputs, config: IngestConfig) -> GateReport:
    chunks = inputs.chunks
    prose = [c for c in chunks if c.chunk_kind is ChunkKind.PROSE]
    descriptors = [c for c in chunks if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR]
    sections = [(m, s) for m in inputs.monographs for s in m.sections]
    gates: list[Gate] = []

    gates.append(_gate("pua_chars", [c.chunk_id for c in chunks for _ in range(count_pua(c.text))]
                       + [f"{m.drug_id}/{s.key}" for m, s in sections for _ in range(count_pua(s.text))]))
    gates.append(_gate("replacement_chars", [c.chunk_id for c in chunks if REPLACEMENT_CHAR in c.text]
                       + [f"{m.drug_id}/{s.key}" for m, s in sections if REPLACEMENT_CHAR in s.text]))
    gates.append(_gate("control_chars", [c.chunk_id for c in chunks if count_control(c.text)]
                       + [f"{m.drug_id}/{s.key}" for m, s in sections if count_control(s.text)]))
    gates.append(_gate("empty_sections", [f"{m.drug_id}/{s.key}" for m, s in sections
                                          if not s.text.strip() and not s.block_ids]))
    gates.append(_gate("parts_without_provenance", _without_provenance(sections, prose)))
    gates.append(_gate("unflagged_quarantine_blocks", _unflagged(inputs, chunks)))
    gates.append(_gate("duplicate_ids", _duplicates(inputs.monographs, chunks)))
    gates.append(_gate("chunks_over_ceiling", [c.chunk_id for c in chunks if c.est_tokens > config.budget.ceiling]))
    gates.append(_gate("chunks_without_printed_page", [c.chunk_id for c in chunks if c.printed_page_range[0] < 1]))
    gates.append(_gate("wrong_schema", _wrong_schema(chunks)))
    gates.append(_gate("non_unique_source_text", _non_unique(chunks)))
    gates.append(_gate("physical_range_not_exact", _range_not_exact(chunks)))
    gates.append(_gate("sections_not_reassemblable", _not_reassemblable(sections, prose)))
    gates.append(_gate("block_text_leaked", _leaks(inputs, prose)))
    held = [b for b in inputs.blocks.values() if not b.released]
    gates.append(Gate("descriptor_count_mismatch", abs(len(descriptors) - len(held)),
                      detail=[f"{len(descriptors)} descriptors for {len(held)} quarantined blocks"]))
    gates.append(_gate("released_tables_without_rows", _rowless(inputs.blocks.values(), chunks)))
    gates.append(_gate("ledger_unassigned", inputs.ledger.unassigned()))
    gates.append(_gate("ledger_conflicts", inputs.ledger.conflicts))
    gates.append(_gate("residual_ink_unclassified", inputs.residual_unclassified))
    gates.append(_gate("outline_runs_not_merged", inputs.outline_runs_unmerged))
    gates.append(_gate("unmapped_headings", inputs.unmapped_headings))
    gates.append(_gate("text_outside_sections", inputs.text_outside_sections))
    gates.append(_gate("blocks_outside_sections", inputs.unassigned_blocks))
    validation = inputs.index_validation
    total = validation.entries_in_scope
    gates.append(Gate("back_index_missing", len(validation.missing),
                      math.floor(total * (1 - config.min_index_recall) + 1e-9), validation.missing))
    gates.append(Gate("back_index_unexpected", len(validation.unexpected),
                      math.floor(validation.detected * (1 - config.min_index_precision) + 1e-9), validation.unexpected))
    gates.append(_gate("back_index_page_mismatch", validation.page_mismatches))
    gates.append(_gate("aliases_unresolved", inputs.unresolved_aliases))
    gates.append(_gate("aliases_ambiguous", inputs.ambiguous_aliases))
    tables = [b for b in inputs.blocks.values() if b.kind.value == "table"]
    # a table the extractors disagree on stays quarantined (the safe state): reported, limit = every table
    gates.append(_gate("table_cells_disagree", [f"{b.block_id}: {'; '.join(b.table.reasons if b.table else ['not read'])}"
                                                for b in tables if not b.released], limit=len(tables)))
    return GateReport(gates)


def _without_provenance(sections: Sequence[tuple[Monograph, Section]], prose: Sequence[ChunkRecord]) -> list[str]:
    out: list[str] = []
    for mono, section in sections:
        for piece in section.pieces:
            if not piece.span_ids or piece.page < 0:
                out.append(f"{mono.drug_id}/{section.key}@{piece.start}")
    out += [c.chunk_id for c in prose if not c.source_regions]
    return out


def _unflagged(inputs: GateInputs, chunks: Sequence[ChunkRecord]) -> list[str]:
    out: list[str] = []
    by_section: dict[tuple[str, str], list[ChunkRecord]] = {}
    for chunk in chunks:
        by_section.setdefault((chunk.drug_id, chunk.section_key), []).append(chunk)
    for block in inputs.blocks.values():
        if block.drug_id is None or block.section_key is None or block.released:
            continue  # counted by blocks_outside_sections; a released table is text, not a crop
        for chunk in by_section.get((block.drug_id, block.section_key), []):
            if not chunk.has_quarantined_content and chunk.chunk_kind is not ChunkKind.TABLE_ROW:
                out.append(f"{chunk.chunk_id} ({block.block_id})")
    for chunk in chunks:
        if chunk.attachments and not chunk.has_quarantined_content:
            out.append(chunk.chunk_id)
        if chunk.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR and not chunk.attachments:
            out.append(f"{chunk.chunk_id} (descriptor without attachment)")
    return sorted(set(out))


def _rowless(blocks: Iterable[QuarantineBlock], chunks: Sequence[ChunkRecord]) -> list[str]:
    """A released table must come out as row chunks of its section (else its content would silently vanish)."""
    rows = {(c.drug_id, c.section_key, c.source_regions[0].bbox) for c in chunks
            if c.chunk_kind is ChunkKind.TABLE_ROW and c.source_regions}
    return [b.block_id for b in blocks if b.released and b.drug_id is not None and b.section_key is not None
            and (b.drug_id, b.section_key, tuple(round(v, 2) for v in b.bbox)) not in rows]


def _duplicates(monographs: Sequence[Monograph], chunks: Sequence[ChunkRecord]) -> list[str]:
    ids = Counter(c.chunk_id for c in chunks)
    drugs = Counter(m.drug_id for m in monographs)
    return [f"chunk {k}" for k, v in ids.items() if v > 1] + [f"drug {k}" for k, v in drugs.items() if v > 1]


def _wrong_schema(chunks: Sequence[ChunkRecord]) -> list[str]:
    out: list[str] = []
    for chunk in chunks:
        try:
            ChunkRecord.model_validate(chunk.model_dump())
        except ValidationError as exc:
            out.append(f"{chunk.chunk_id}: {exc.error_count()} errors")
            continue
        expected = f"{chunk.drug_id}__{chunk.section_key}__{chunk.part_index}"
        if chunk.chunk_id != expected or chunk.part_index >= chunk.part_count or chunk.schema_version != 4:
            out.append(chunk.chunk_id)
    return out


def _non_unique(chunks: Sequence[ChunkRecord]) -> list[str]:
    """Identical source text twice within one drug (a doubled emission); across drugs it may be legitimate."""
    seen: Counter[tuple[str, str]] = Counter((c.drug_id, c.source_text) for c in chunks)
    return [f"{drug}: {text[:40]!r}" for (drug, text), n in seen.items() if n > 1]


def _range_not_exact(chunks: Sequence[ChunkRecord]) -> list[str]:
    out: list[str] = []
    for chunk in chunks:
        pages = [r.physical_page for r in chunk.source_regions]
        if pages and (min(pages), max(pages)) != tuple(chunk.source_page_range):
            out.append(chunk.chunk_id)
        printed = [r.printed_page for r in chunk.source_regions]
        if printed and (min(printed), max(printed)) != tuple(chunk.printed_page_range):
            out.append(chunk.chunk_id)
    return out


def _not_reassemblable(sections: Sequence[tuple[Monograph, Section]], prose: Sequence[ChunkRecord]) -> list[str]:
    parts: dict[tuple[str, str], list[ChunkRecord]] = {}
    for chunk in prose:
        parts.setdefault((chunk.drug_id, chunk.section_key), []).append(chunk)
    out: list[str] = []
    for mono, section in sections:
        text = section.text
        mine = sorted(parts.get((mono.drug_id, section.key), []), key=lambda c: c.part_index)
        rebuilt = reassemble([c.source_text for c in mine])
        if ws_normalize(rebuilt) != ws_normalize(text):
            out.append(f"{mono.drug_id}/{section.key}")
    return out


def _leaks(inputs: GateInputs, prose: Sequence[ChunkRecord]) -> list[str]:
    """Block spans used as section text, or a long block line found verbatim in a prose chunk of its drug."""
    section_spans = {sid for m in inputs.monographs for s in m.sections for p in s.pieces for sid in p.span_ids}
    by_drug: dict[str, str] = {}
    for chunk in prose:
        by_drug[chunk.drug_id] = by_drug.get(chunk.drug_id, "") + "\n" + ws_normalize(chunk.text)
    out: list[str] = []
    for block in inputs.blocks.values():
        out += [f"{block.block_id}: span {sid}" for sid in block.span_ids if sid in section_spans]
        haystack = by_drug.get(block.drug_id or "", "")
        for line in block.text.split("\n"):
            needle = ws_normalize(line)
            if len(needle) >= LEAK_MIN_CHARS and needle in haystack:
                out.append(f"{block.block_id}: {needle[:40]!r}")
    return out
