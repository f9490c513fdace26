"""``duocthu ingest PDF``: run the ingest pipeline and print its gate table.

Through the bus when a stack is running (``NATS_URL`` reachable, or the
NATS server of ``duocthu up`` found in the state directory): the job goes to
the ingest worker like any other job and the command waits for its result
(and for the release to go live).  In-process otherwise: the same pipeline
runs here, without embedding (there is no index to feed).  Either way the
JSON report is written and the exit code is 0 only when every gate passed.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from duocthu_contracts.messages import (
    CorpusReleaseCompleted,
    IngestJobProgressPayload,
    IngestJobRequestedPayload,
    IngestJobResult,
)
from duocthu_ingest.application.jobs import part_jobs
from duocthu_ingest.application.pipeline import IngestRequest, IngestResult, Progress
from duocthu_ingest.application.progress_tally import ProgressTally
from duocthu_ingest.errors import IngestError
from duocthu_runtime import JobProgress, RuntimeSettings
from duocthu_runtime.devstack import NO_STACK_HINT, ops_settings, reachable, stack_nats_url

SubmitAll = Callable[[RuntimeSettings, list[IngestJobRequestedPayload], float, bool,
                      Callable[[IngestJobProgressPayload], None] | None],
                     Coroutine[None, None, tuple[list[IngestJobResult], CorpusReleaseCompleted | None]]]


@dataclass(frozen=True)
class IngestTools:
    """What the command acts on, handed in by the composition root."""

    parse: Callable[[IngestRequest, Progress | None], IngestResult]
    page_count: Callable[[Path], int]
    submit_all: SubmitAll


def parse_pages(value: str | None) -> tuple[int, int] | None:
    """"10-250" (physical pages, 0-based, inclusive) -> (10, 250)."""
    if not value:
        return None
    first, sep, last = value.partition("-")
    try:
        pages = (int(first), int(last if sep else first))
    except ValueError as exc:
        raise typer.BadParameter(f"page range must look like 10-250, got {value!r}") from exc
    if pages[0] < 0 or pages[1] < pages[0]:
        raise typer.BadParameter(f"invalid page range {value!r}")
    return pages


def gate_table(gates: list[dict[str, object]] | dict[str, int]) -> str:
    rows = gates if isinstance(gates, list) else [
        {"gate": k, "value": v, "limit": 0, "passed": v == 0} for k, v in gates.items()]
    width = max((len(str(r["gate"])) for r in rows), default=10)
    lines = [f"{'gate'.ljust(width)}  value  limit  status"]
    for row in rows:
        status = "ok" if row["passed"] else "FAIL"
        lines.append(f"{str(row['gate']).ljust(width)}  {str(row['value']).rjust(5)}  {str(row['limit']).rjust(5)}  {status}")
    return "\n".join(lines)


def find_stack(var_dir: Path, nats_url: str | None) -> str | None:
    """A reachable ``NATS_URL``, else the stack running on ``var_dir`` (None: ingest in-process)."""
    return stack_nats_url(var_dir, nats_url if nats_url and reachable(nats_url) else None)


def ingest_commands(tools: IngestTools) -> typer.Typer:
    app = typer.Typer(
        help="Ingest a formulary PDF: parse, gate, chunk (and embed via the stack).",
        invoke_without_command=True, no_args_is_help=False,
        # a group whose callback takes the PDF argument: options may follow it ("ingest X.pdf --report R")
        context_settings={"allow_interspersed_args": True},
    )

    @app.callback()
    def ingest(  # noqa: PLR0917 - typer options
        pdf: Annotated[Path, typer.Argument(help="the formulary PDF")],
        report: Annotated[Path, typer.Option(help="where to write the JSON report")] = Path("var/ingest-report.json"),
        transcriptions: Annotated[Path | None, typer.Option(help="verified transcription sidecar (JSON)")] = None,
        pages: Annotated[str | None, typer.Option(help="physical page range, e.g. 0-120 (default: all)")] = None,
        mode: Annotated[str, typer.Option(help="auto (bus if a stack runs), bus or local")] = "auto",
        var_dir: Annotated[Path, typer.Option(help="state directory of `duocthu up`")] = Path("var"),
        nats_url: Annotated[str | None, typer.Option(envvar="NATS_URL", help="NATS of a running stack")] = None,
        release_id: Annotated[str | None, typer.Option(help="release id (bus mode; default: generated)")] = None,
        timeout: Annotated[float, typer.Option(help="seconds to wait for the job (bus mode)")] = 3600.0,
        residual_ink: Annotated[bool, typer.Option(help="run the residual-ink QA (local mode)")] = True,
        parts: Annotated[int, typer.Option(help="bus mode: split the book into N page-range jobs for N replicas")] = 1,
    ) -> None:
        """Parse PDF into chunks with fail-closed gates; print the gate table; exit 1 if any gate fails."""
        page_range = parse_pages(pages)
        if mode not in ("auto", "bus", "local"):
            raise typer.BadParameter("mode must be auto, bus or local")
        url = find_stack(var_dir, nats_url) if mode != "local" else None
        if mode == "bus" and url is None:
            typer.echo(f"error: no running stack found in {var_dir}: {NO_STACK_HINT}", err=True)
            raise typer.Exit(2)
        report.parent.mkdir(parents=True, exist_ok=True)
        if url is not None:
            if not pdf.is_file():
                typer.echo(f"error: không tìm thấy tệp PDF: {pdf}", err=True)
                raise typer.Exit(1)
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            rid = release_id or f"cli-{stamp}"
            try:
                if page_range is not None:
                    jobs = [IngestJobRequestedPayload(
                        job_id=uuid.uuid4().hex, release_id=rid, pdf_uri=str(pdf.resolve()), page_range=page_range,
                        transcriptions_uri=str(transcriptions.resolve()) if transcriptions else None)]
                else:
                    jobs = part_jobs(pdf, tools.page_count(pdf), rid, parts, transcriptions)
            except IngestError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(1) from exc
            typer.echo(f"ingesting through the running stack ({url}): release {rid}, {len(jobs)} job(s) …")
            tally = ProgressTally(len(jobs))
            try:
                with JobProgress("ingest through the stack", unit="pages") as bar:
                    def show(update: IngestJobProgressPayload) -> None:
                        view = tally.add(update)
                        bar.update(view.done, view.total, what=view.stage, unit=view.unit)

                    results, release = asyncio.run(tools.submit_all(ops_settings(url, var_dir), jobs, timeout, True, show))
            except TimeoutError as exc:
                typer.echo(f"error: no complete result for release {rid} within {timeout:.0f} s", err=True)
                raise typer.Exit(1) from exc
            bodies = [r.payload for r in results]
            reports = [b.report or b.model_dump(mode="json") for b in bodies]
            report.write_text(json.dumps(reports[0] if len(reports) == 1 else {"parts": reports}, ensure_ascii=False,
                                         indent=2), encoding="utf-8")
            for index, body in enumerate(bodies):
                if len(bodies) > 1:
                    typer.echo(f"part {index}:")
                gates = body.report.get("gates") if body.report else None
                typer.echo(gate_table(gates if isinstance(gates, list) else body.gates))
            typer.echo(f"report: {report}")
            failed = [b for b in bodies if b.status != "embedded"]
            for body in failed:
                typer.echo(f"error: {body.error}", err=True)
            if failed:
                raise typer.Exit(1)
            if release is not None and release.payload.status != "live":
                typer.echo(f"error: release {release.payload.release_id} failed: {release.payload.error}", err=True)
                raise typer.Exit(1)
            typer.echo(f"released: {sum(b.chunk_count for b in bodies)} chunks in {sum(b.batch_count for b in bodies)} "
                       f"batches" + (f", release {release.payload.release_id} live" if release else ""))
            return
        try:
            with JobProgress("ingest (parse, gates, chunks)", unit="pages") as progress:
                result_local = tools.parse(IngestRequest(pdf=pdf, transcriptions=transcriptions, page_range=page_range,
                                                        residual_ink=residual_ink),
                                           lambda page, total: progress.update(page + 1, total))
        except IngestError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from exc
        report.write_text(json.dumps(result_local.report, ensure_ascii=False, indent=2), encoding="utf-8")
        typer.echo(gate_table(result_local.gates.to_report()))
        chunks = result_local.report["chunks"]
        typer.echo(f"{len(result_local.monographs)} monographs, {chunks['total']} chunks "  # type: ignore[index]
                   f"({result_local.pages_processed} pages); report: {report}")
        if not result_local.released:
            names = ", ".join(f"{g.name}={g.value}" for g in result_local.gates.failed())
            typer.echo(f"error: gates failed, nothing released: {names}", err=True)
            raise typer.Exit(1)

    return app
