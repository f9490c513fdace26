"""``duocthu eval tables``: how many tables the two extractors agree on, and whether any released cell is wrong.

For a typeset book (the sample, or a synthetic one) the typesetter's ground
truth holds every table cell with its span and rectangle.  The book goes
through the real ingest; each detected table block is matched to its truth
table by page and position, and:

* found / agreed / released — detected; both extractors read a grid and the
  grids are equal in every slot; released as row chunks (agreed + captioned);
* cells — every slot of a released grid against the truth grid; a released
  slot that differs is a *wrong cell released* (the figure that must be 0);
* clearance questions — one per body row of a released table keyed on renal
  function (its band read by ``bands.cell_band``), the value inside the band,
  asked as a dose question with that eGFR/Clcr in the patient context: route A
  over the dose section with retrieval's policy (``answered_by_rows`` as the
  retriever applies it), then generation's drafting with the extractive
  writer, with the tables quarantined (before issue 19) and as released
  (after).  Each ends VERIFY_PDF, answered from a table row, or otherwise;
  and whether the row answered is exactly the row whose band holds the value.
  The verifier is not run (its own evals cover row binding).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from duocthu_contracts.corpus import ChunkKind, ChunkRecord
from duocthu_contracts.decisions import Decision
from duocthu_contracts.evidence import Route
from duocthu_contracts.frame import DrugRef, PatientContext, QueryFrame, TurnType
from duocthu_contracts.messages import EvidenceRetrievedPayload
from duocthu_generation import Drafted, Drafting, ExtractiveWriter, cell_band, parse_label
from duocthu_ingest import (
    DEFAULT_CONFIG,
    IngestRequest,
    IngestResult,
    QuarantineBlock,
    RawCell,
    TableGrid,
    chunk_monograph,
    count_tokens,
    resolve,
    run_ingest,
)
from duocthu_providers import TurnBudget
from duocthu_retrieval import answered_by_rows, decide


@dataclass
class TableFigures:
    truth_tables: int = 0
    found: int = 0
    agreed: int = 0
    released: int = 0
    cells_compared: int = 0
    cells_correct: int = 0
    wrong_cells_released: int = 0
    questions: int = 0
    verify_pdf_before: int = 0
    answerable_before: int = 0
    verify_pdf_after: int = 0
    answerable_after: int = 0  # answered from a table row
    changed: int = 0
    row_selected: int = 0  # the row answered is the row whose band holds the value
    seconds: float = 0.0
    quarantined: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    #: before issue 19, the questions answered from the text beside the quarantined table: what they said
    answered_before: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _truth_grid(table: dict[str, Any]) -> TableGrid:
    return resolve([RawCell(c["row"], c["col"], c["rowspan"], c["colspan"], tuple(c["bbox"]), c["text"])
                    for c in table["cells"]])


def _match(block: QuarantineBlock, truth: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    for table in truth:
        x0, y0, x1, y1 = table["bbox"]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        b = block.bbox
        if table["page"] == block.page and b[0] <= cx <= b[2] and b[1] <= cy <= b[3]:
            return table
    return None


@dataclass(frozen=True)
class Answer:
    """How a clearance question ended through retrieval's policy and generation's drafting."""

    decision: Decision
    from_rows: bool = False
    claims: tuple[str, ...] = ()


_DRAFTING = Drafting(ExtractiveWriter())


def _answer(chunks: Sequence[ChunkRecord], frame: QueryFrame) -> Answer:
    """Route A over the dose section as the retriever decides it (the value given), then the extractive drafting."""
    ordered = sorted(chunks, key=lambda c: c.part_index)
    whole = not answered_by_rows(ordered, renal_value_given=True)
    policy = decide(Route.A_SECTION, [(c, None) for c in ordered], visual_blocks_whole_answer=whole)
    if policy.decision is not Decision.ANSWERABLE:
        return Answer(policy.decision)
    retrieved = EvidenceRetrievedPayload(query=frame.standalone_query, frame=frame, route=Route.A_SECTION,
                                         evidence=policy.evidence)
    budget = TurnBudget(deadline=datetime.now(UTC) + timedelta(seconds=60), calls_left=0)
    out = asyncio.run(_DRAFTING.draft(retrieved, budget))
    if not isinstance(out, Drafted):
        return Answer(out.decision)
    cited = [policy.evidence[i - 1] for c in out.draft.claims for i in c.citations]
    rows = bool(cited) and all(e.chunk_kind is ChunkKind.TABLE_ROW for e in cited)
    return Answer(Decision.ANSWERABLE, rows, tuple(c.text for c in out.draft.claims))


def _value_in(low: float, high: float) -> float:
    return low + 1 if high == float("inf") else (low + high) / 2


def score(result: IngestResult, truth: dict[str, Any]) -> TableFigures:
    figures = TableFigures()
    truth_tables = [t for m in truth["monographs"] for t in m["tables"]]
    figures.truth_tables = len(truth_tables)
    blocks = [b for b in result.blocks.values() if b.kind.value == "table"]
    figures.found = sum(1 for b in blocks if _match(b, truth_tables) is not None)
    before_blocks = {k: _quarantined(b) for k, b in result.blocks.items()}
    for block in blocks:
        verdict = block.table
        if verdict is None:
            continue
        if not any(r.startswith(("find_tables", "ruled_grid", "cells disagree")) for r in verdict.reasons):
            figures.agreed += 1
        if not block.released or verdict.grid is None:
            figures.quarantined.append(f"{block.block_id}: {'; '.join(verdict.reasons)}")
            continue
        figures.released += 1
        source = _match(block, truth_tables)
        expected = _truth_grid(source) if source is not None else None
        for r in range(verdict.grid.nrows):
            for c in range(verdict.grid.ncols):
                figures.cells_compared += 1
                got = verdict.grid.slots[r][c]
                ok = (expected is not None and r < expected.nrows and c < expected.ncols
                      and expected.slots[r][c] == got)
                figures.cells_correct += ok
                if not ok:
                    figures.wrong_cells_released += 1
                    figures.wrong.append(f"{block.block_id} r{r}c{c}: {got.text!r}")
        _questions(figures, result, block, verdict.grid, before_blocks)
    return figures


def _quarantined(block: QuarantineBlock) -> QuarantineBlock:
    """The block as it was before issue 19: every table quarantined."""
    return QuarantineBlock(block.block_id, block.kind, block.shape, block.page, block.bbox, block.printed_page,
                           block.drug_id, block.section_key, list(block.span_ids), block.text, block.caption)


def _questions(figures: TableFigures, result: IngestResult, block: QuarantineBlock, grid: TableGrid,
               before_blocks: dict[str, QuarantineBlock]) -> None:
    key_header = " ".join(grid.header_path(0))
    if not parse_label(key_header).renal_word:
        return
    mono = next(m for m in result.monographs if m.drug_id == block.drug_id)
    after = [c for c in result.chunks if c.drug_id == block.drug_id and c.section_key == block.section_key]
    before = [c for c in chunk_monograph(mono, before_blocks, result.page_map, DEFAULT_CONFIG, count_tokens)
              if c.section_key == block.section_key]
    egfr = "egfr" in key_header.lower() or "lọc cầu thận" in key_header.lower()
    drug = DrugRef(drug_id=block.drug_id, drug_name=after[0].drug_name if after else block.drug_id)
    for r in range(grid.header_rows, grid.nrows):
        key = grid.slots[r][0].text
        band = cell_band(key)
        if band is None:
            continue
        value = _value_in(band.low, band.high)
        figures.questions += 1
        context = PatientContext(egfr=value) if egfr else PatientContext(crcl_ml_min=value)
        frame = QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[drug], section_key=block.section_key,
                           patient_context=context, standalone_query=f"Liều {drug.drug_name} khi {key_header} {value:g}?")
        was, now = _answer(before, frame), _answer(after, frame)
        figures.verify_pdf_before += was.decision is Decision.VERIFY_PDF
        figures.answerable_before += was.decision is Decision.ANSWERABLE
        if was.decision is Decision.ANSWERABLE:
            figures.answered_before.append(f"{block.drug_id} {key_header} {value:g}: {' | '.join(was.claims)[:160]}")
        figures.verify_pdf_after += now.decision is Decision.VERIFY_PDF
        figures.answerable_after += now.from_rows
        figures.changed += was.decision is Decision.VERIFY_PDF and now.from_rows
        printed = f" — {' › '.join(grid.header_path(0))}: {key};"
        figures.row_selected += now.from_rows and len(now.claims) == 1 and printed in now.claims[0]


def tables_report(pdf: Path, truth_path: Path, transcriptions: Path | None, *,
                  progress: Callable[[int, int], None] | None = None) -> TableFigures:
    t0 = time.perf_counter()
    result = run_ingest(IngestRequest(pdf=pdf, transcriptions=transcriptions, residual_ink=False), progress)
    figures = score(result, json.loads(truth_path.read_text(encoding="utf-8")))
    figures.seconds = round(time.perf_counter() - t0, 1)
    return figures


def line(name: str, f: TableFigures) -> str:
    return (f"{name}: tables {f.truth_tables} in truth, found {f.found}, agreed {f.agreed}, released {f.released}; "
            f"cells {f.cells_correct}/{f.cells_compared} correct, wrong cells released {f.wrong_cells_released}; "
            f"clearance questions through generation {f.questions}: before verify_pdf {f.verify_pdf_before}, "
            f"answerable {f.answerable_before}; after from a table row {f.answerable_after}, verify_pdf "
            f"{f.verify_pdf_after} (changed {f.changed}), the value's own row {f.row_selected}; {f.seconds} s")
