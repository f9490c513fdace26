"""The offline path end to end (seed 003 §2.1): PDF -> spans -> repair/QA -> segments -> chunks -> gates.

This is the application layer: it walks the pages through the
:class:`~duocthu_ingest.ports.SourcePages` port and hands every decision to
the pure domain.  It stops before embedding (one step at the end, see
:mod:`duocthu_ingest.application.publishing`) so that the parse can be run,
measured and gated without a model.

A job may cover a physical page range so several replicas can split one
book: it owns the monographs whose *title* lies in its range, reads on past
the range until the next title, learns the part it starts in from a cheap
text scan of the pages before it, and validates against the back index only
the entries that point into its own pages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from duocthu_contracts.corpus import ChunkKind, ChunkRecord, DrugCatalog
from duocthu_ingest.domain.atoms import TokenCounter
from duocthu_ingest.domain.back_index import (
    BackIndex,
    Detected,
    IndexValidation,
    parse_back_index,
    validate_against_index,
)
from duocthu_ingest.domain.catalog import build_catalog
from duocthu_ingest.domain.chunker import chunk_monograph, records_sha256
from duocthu_ingest.domain.config import DEFAULT_CONFIG, IngestConfig
from duocthu_ingest.domain.gates import GateInputs, GateReport, evaluate
from duocthu_ingest.domain.layout import ParagraphMarker, classify, group_lines, reading_order
from duocthu_ingest.domain.ledger import CoverageLedger
from duocthu_ingest.domain.model import (
    BlockMarker,
    Line,
    Monograph,
    OutlineRun,
    PageContent,
    QuarantineBlock,
    SpanOrigin,
    SpanState,
    center_inside,
)
from duocthu_ingest.domain.page_map import PageMap, build_page_map, folio_candidates
from duocthu_ingest.domain.quarantine import find_blocks
from duocthu_ingest.domain.repair import (
    RepairStats,
    Transcriptions,
    insert_transcriptions,
    outline_runs,
    repair_glyphs,
    split_boilerplate,
)
from duocthu_ingest.domain.residual_ink import InkSummary, PageKnowledge, classify_page
from duocthu_ingest.domain.ruled_grid import reconstruct
from duocthu_ingest.domain.segmentation import (
    Scope,
    SegmentationResult,
    Segmenter,
    add_index_line,
    is_divider,
    line_text,
)
from duocthu_ingest.domain.tables import reconcile
from duocthu_ingest.errors import BadInput
from duocthu_ingest.ports import PdfSource, SourcePages

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class IngestRequest:
    pdf: Path
    transcriptions: Path | None = None
    page_range: tuple[int, int] | None = None  # physical pages, inclusive, 0-based
    config: IngestConfig = DEFAULT_CONFIG
    residual_ink: bool = True


@dataclass
class IngestResult:
    source_sha256: str
    page_count: int
    pages_processed: int
    monographs: list[Monograph]
    blocks: dict[str, QuarantineBlock]
    chunks: list[ChunkRecord]
    catalog: DrugCatalog
    page_map: PageMap
    gates: GateReport
    report: dict[str, object]
    corpus_sha256: str
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def released(self) -> bool:
        return self.gates.passed


def _divider_scope(source: SourcePages, pages: range, config: IngestConfig) -> tuple[Scope, int | None]:
    """The part the book is in after ``pages`` (text scan only), and the first back-index page seen."""
    scope = Scope.BEFORE
    index_page: int | None = None
    dividers = config.part_dividers()
    for number in pages:
        for text in source.lines(number):
            if not is_divider(text, config, dividers):
                continue
            if any(p.match(text) for p in config.back_index()):
                scope = Scope.BACK_INDEX
                index_page = number if index_page is None else index_page
            elif any(p.match(text) for p in config.monograph_part()):
                scope = Scope.MONOGRAPHS
            elif any(p.match(text) for p in config.after_monographs()):
                scope = Scope.AFTER
    return scope, index_page


class _Run:
    """One pass over the pages; holds the per-run state the steps share."""

    def __init__(self, request: IngestRequest, pages: SourcePages, transcriptions: Transcriptions) -> None:
        self.request = request
        self.config = request.config
        self.pages = pages
        self.transcriptions = transcriptions
        self.ledger = CoverageLedger()
        self.blocks: dict[str, QuarantineBlock] = {}
        self.folios: dict[int, list[int]] = {}
        self.repair_stats = RepairStats()
        self.ink = InkSummary()
        self.paragraphs = ParagraphMarker()
        self.index_paragraphs = ParagraphMarker(sticky_margins=True)
        self.pages_processed = 0
        self.timings: dict[str, float] = {"extract": 0.0, "layout": 0.0, "residual_ink": 0.0}

    def page(self, number: int, segmenter: Segmenter | None) -> list[tuple[str, bool]]:
        """Process one page; feed the segmenter (or, without one, return the page's text lines)."""
        t0 = time.perf_counter()
        content = self.pages.content(number)
        self.timings["extract"] += time.perf_counter() - t0
        t1 = time.perf_counter()
        runs = outline_runs(content)
        insert_transcriptions(content, runs, self.transcriptions, self.repair_stats)
        repair_glyphs(content, self.transcriptions, self.repair_stats)
        self.folios[number] = folio_candidates(content, self.config)
        body, boiler = split_boilerplate(content, self.config)
        page_blocks = find_blocks(content, body, self.config)
        self._read_tables(number, content, page_blocks)
        quarantined = {sid for b in page_blocks for sid in b.span_ids}
        remaining = [s for s in body if s.span_id not in quarantined]
        lines = group_lines(remaining, number)
        markers = [BlockMarker(b.block_id, number, b.bbox, classify(b.bbox, content.width / 2)) for b in page_blocks]
        items = reading_order(lines, markers, content.width / 2)
        self.timings["layout"] += time.perf_counter() - t1
        if segmenter is None:  # a back-index page read by a partial job: its entries, as paragraphs
            self.index_paragraphs.mark(items)
            entries: list[tuple[str, bool]] = []
            for item in items:
                text = line_text(item.spans) if isinstance(item, Line) else ""
                if isinstance(item, Line) and text and not is_divider(text, self.config):
                    add_index_line(entries, item, text)
            return entries
        self.pages_processed += 1
        self.ledger.register(content.spans)
        self.ledger.assign([s.span_id for s in boiler], SpanState.BOILERPLATE_EXCLUDED)
        self.ledger.assign(quarantined, SpanState.QUARANTINED)
        for block in page_blocks:
            self.blocks[block.block_id] = block
        marker = self.index_paragraphs if segmenter.result.scope is Scope.BACK_INDEX else self.paragraphs
        marker.mark(items)
        t2 = time.perf_counter()
        segmenter.feed(items)
        self.timings["layout"] += time.perf_counter() - t2
        in_part = bool(segmenter.result.monograph_part_pages) and segmenter.result.monograph_part_pages[-1] == number
        if self.request.residual_ink and in_part:  # the gate guards what is released: the monograph pages
            t3 = time.perf_counter()
            self._residual_ink(number, content, page_blocks, runs)
            self.timings["residual_ink"] += time.perf_counter() - t3
        return []

    def _read_tables(self, number: int, content: PageContent, page_blocks: Sequence[QuarantineBlock]) -> None:
        """Each table read twice, independently; ``reconcile`` decides whether its cells may be released."""
        tables = [b for b in page_blocks if b.kind.value == "table"]
        if not tables:
            return
        words = self.pages.words(number)
        for block in tables:
            box = block.bbox
            rules = [d.bbox for d in content.drawings if d.kind.value in ("hline", "vline")
                     and center_inside(d.bbox, box, 1.0)]
            mine = [w for w in words if center_inside(w.bbox, box, 1.0)]
            block.table = reconcile(block.caption, self.pages.table_cells(number, box), reconstruct(rules, mine))

    def _residual_ink(self, number: int, content: PageContent, page_blocks: Sequence[QuarantineBlock],
                      runs: Sequence[OutlineRun]) -> None:
        # only the text layer is masked: outlined text re-inserted from transcriptions must still be seen as ink
        boxes = [s.bbox for s in content.spans if s.origin is SpanOrigin.EXTRACTED]
        ink, scale = self.pages.ink(number, self.config.residual_ink_dpi, boxes)
        known = PageKnowledge(
            page=content.page, height=content.height, header_limit=content.height * self.config.header_band,
            footer_limit=content.height * (1 - self.config.footer_band),
            tables=[b.bbox for b in page_blocks if b.kind.value == "table"],
            formulas=[b.bbox for b in page_blocks if b.kind.value == "formula"],
            outline_runs=[r.bbox for r in runs],
            spans=boxes, images=content.images,
        )
        classify_page(ink, scale, known, self.config.speck_max_pixels, self.ink)


class IngestPipeline:
    """The parse of one PDF (or one page-range part of it) into gated chunks and a catalog."""

    def __init__(self, source: PdfSource, count: TokenCounter) -> None:
        self.source = source
        self.count = count

    def run(self, request: IngestRequest, progress: Progress | None = None) -> IngestResult:
        transcriptions = (self.source.transcriptions(request.transcriptions) if request.transcriptions
                          else Transcriptions())
        pages = self.source.open(request.pdf)
        try:
            return _parse(request, pages, transcriptions, self.source.sha256(request.pdf), count=self.count,
                          progress=progress)
        finally:
            pages.close()


def _parse(request: IngestRequest, pages: SourcePages, transcriptions: Transcriptions, source_sha: str, *,
           count: TokenCounter, progress: Progress | None) -> IngestResult:
    t_start = time.perf_counter()
    config = request.config
    total = pages.page_count
    first, last = request.page_range if request.page_range is not None else (0, total - 1)
    if not 0 <= first <= last:
        raise BadInput(f"khoảng trang không hợp lệ: {request.page_range}")
    if first >= total:
        raise BadInput(f"khoảng trang {request.page_range} nằm ngoài PDF ({total} trang)")
    last = min(last, total - 1)
    partial = request.page_range is not None and (first, last) != (0, total - 1)
    scope, _ = _divider_scope(pages, range(first), config) if first > 0 else (Scope.BEFORE, None)
    run = _Run(request, pages, transcriptions)
    segmenter = Segmenter(config, run.ledger, run.blocks, scope=scope,
                          printed=lambda p: next(iter(run.folios.get(p) or []), None),
                          owned_pages=(first, last) if partial else None)
    number = first
    while number < total:
        if number > last and (segmenter.done or segmenter.result.scope is not Scope.MONOGRAPHS):
            break
        run.page(number, segmenter)
        if progress is not None:
            progress(number, total)
        number += 1
    seg = segmenter.finish()
    # blocks of this run: those inside its monographs, and in-scope ones no section claimed (gated);
    # blocks of another job's monograph or outside the monograph part are not this release's
    unclaimed = set(seg.unassigned_blocks)
    run.blocks = {k: b for k, b in run.blocks.items() if b.drug_id is not None or k in unclaimed}
    index_lines = seg.back_index_lines
    if partial and not index_lines:
        index_lines = _partial_back_index(run, first, total)
    if not seg.monographs and not partial:  # a part may legitimately hold no title (appendix pages)
        raise BadInput("không tìm thấy chuyên luận thuốc nào trong PDF (không có tiêu đề chuyên luận "
                       "trong phần chuyên luận) — tệp có đúng là Dược thư không?")
    page_map = build_page_map(run.folios)
    t_chunk = time.perf_counter()
    back_index = parse_back_index(index_lines, config)
    scope_pages = _owned_printed_range(seg, page_map, (first, last) if partial else None)
    validation = _validate(seg.monographs, back_index, page_map, scope_pages)
    catalog = build_catalog(seg.monographs, back_index, page_map, config, scope_pages if partial else None)
    chunks = [c for mono in seg.monographs for c in chunk_monograph(mono, run.blocks, page_map, config, count)]
    timings = dict(run.timings)
    timings["chunk"] = time.perf_counter() - t_chunk
    gates = evaluate(GateInputs(
        monographs=seg.monographs, blocks=run.blocks, chunks=chunks, ledger=run.ledger,
        index_validation=validation, unresolved_aliases=catalog.unresolved_aliases,
        ambiguous_aliases=catalog.ambiguous_aliases, residual_unclassified=run.ink.unclassified,
        outline_runs_unmerged=run.repair_stats.outline_runs_unmerged + run.repair_stats.transcriptions_without_ink,
        unmapped_headings=seg.unmapped_headings, text_outside_sections=seg.text_outside_sections,
        unassigned_blocks=seg.unassigned_blocks,
    ), config)
    corpus_sha = records_sha256(chunks)
    catalog = catalog.model_copy(update={"corpus_sha256": corpus_sha})
    timings["total"] = time.perf_counter() - t_start
    result = IngestResult(
        source_sha256=source_sha, page_count=total, pages_processed=run.pages_processed,
        monographs=seg.monographs, blocks=run.blocks, chunks=chunks, catalog=catalog, page_map=page_map,
        gates=gates, report={}, corpus_sha256=corpus_sha, timings=timings,
    )
    result.report = build_report(request, result, run, seg, back_index=back_index, validation=validation)
    return result


def _partial_back_index(run: _Run, first: int, total: int) -> list[tuple[str, bool]]:
    """A partial job reads the back index too (its pages are few), to validate its own monographs."""
    _, index_page = _divider_scope(run.pages, range(first, total), run.config)
    if index_page is None:
        return []
    lines: list[tuple[str, bool]] = []
    for number in range(index_page, total):
        lines += run.page(number, None)
    return lines


def _owned_printed_range(seg: SegmentationResult, page_map: PageMap,
                         owned: tuple[int, int] | None) -> tuple[int, int] | None:
    if owned is not None:
        pages = [p for p in range(owned[0], owned[1] + 1) if page_map.printed_page(p) is not None]
    else:
        pages = [p for p in seg.monograph_part_pages if page_map.printed_page(p) is not None]
    if not pages:
        return None
    printed = [page_map.printed[p] for p in pages]
    return min(printed), max(printed)


def _validate(monographs: Sequence[Monograph], index: BackIndex, page_map: PageMap,
              scope: tuple[int, int] | None) -> IndexValidation:
    detected = [Detected(m.drug_id, m.drug_name, page_map.printed_page(m.title_page)) for m in monographs]
    if not index.found:
        result = IndexValidation(detected=len(detected))
        result.missing = ["(không tìm thấy bảng tra cứu cuối sách)"]
        return result
    return validate_against_index(detected, index, scope)


def chunk_stats(chunks: Sequence[ChunkRecord]) -> dict[str, int]:
    tokens = [c.est_tokens for c in chunks]
    return {
        "total": len(chunks),
        "prose": sum(1 for c in chunks if c.chunk_kind is ChunkKind.PROSE),
        "block_descriptors": sum(1 for c in chunks if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR),
        "table_rows": sum(1 for c in chunks if c.chunk_kind is ChunkKind.TABLE_ROW),
        "tokens_total": sum(tokens),
        "tokens_max": max(tokens, default=0),
        "over_ceiling": sum(1 for c in chunks if c.oversized),
        "with_context_labels": sum(1 for c in chunks if c.context_labels),
        "with_quarantine_flag": sum(1 for c in chunks if c.has_quarantined_content),
        "multi_part_sections": len({(c.drug_id, c.section_key) for c in chunks
                                    if c.part_index > 0 and c.chunk_kind is ChunkKind.PROSE}),
    }


def build_report(request: IngestRequest, result: IngestResult, run: _Run, seg: SegmentationResult, *,
                 back_index: BackIndex, validation: IndexValidation) -> dict[str, object]:
    sections = [s for m in result.monographs for s in m.sections]
    catalog = result.catalog
    alias_kinds: dict[str, int] = {}
    for entry in catalog.entries:
        for alias in entry.aliases:
            alias_kinds[alias.kind.value] = alias_kinds.get(alias.kind.value, 0) + 1
    return {
        "released": result.released,
        "source": {"path": str(request.pdf), "sha256": result.source_sha256, "pages": result.page_count,
                   "pages_processed": result.pages_processed,
                   "page_range": list(request.page_range) if request.page_range else None,
                   "transcriptions": str(request.transcriptions) if request.transcriptions else None},
        "gates": result.gates.to_report(),
        "page_map": result.page_map.to_report(),
        "ledger": run.ledger.summary(),
        "residual_ink": run.ink.to_report() if request.residual_ink else None,
        "repair": {**run.repair_stats.to_report(), "reversed_glyph_runs": run.pages.reversed_runs},
        "segmentation": {
            "monographs": len(result.monographs), "sections": len(sections),
            "section_chars": sum(len(s.text) for s in sections),
            "unmapped_headings": seg.unmapped_headings, "text_outside_sections": seg.text_outside_sections,
            "before_first_title": seg.before_first_title[:20],
        },
        "blocks": [{"block_id": b.block_id, "kind": b.kind.value, "shape": b.shape, "drug_id": b.drug_id,
                    "section_key": b.section_key.value if b.section_key else None, "physical_page": b.page,
                    "printed_page": result.page_map.printed_page(b.page), "bbox": [round(v, 1) for v in b.bbox],
                    "released": b.released, "caption": b.caption,
                    "reasons": list(b.table.reasons) if b.table else []}
                   for b in result.blocks.values()],
        "catalog": {"entries": len(catalog.entries), "aliases": alias_kinds,
                    "index_aliases_in_book": len(back_index.aliases), "index_entries": len(back_index.entries),
                    "index_unparsed": back_index.unparsed[:20], "unresolved": catalog.unresolved_aliases,
                    "ambiguous": catalog.ambiguous_aliases},
        "back_index": validation.to_report(),
        "chunks": chunk_stats(result.chunks),
        "corpus_sha256": result.corpus_sha256,
        "timings_s": {k: round(v, 3) for k, v in result.timings.items()},
    }
