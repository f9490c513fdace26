"""``duocthu audit show | export | replay | reverify``."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from faststream.exceptions import FastStreamException
from nats.errors import Error as NatsError

from duocthu_cli.audit.chain import causal_order, summarize
from duocthu_cli.audit.durations import parse_duration
from duocthu_cli.audit.records import Recorded, read_window
from duocthu_cli.audit.redaction import redact
from duocthu_cli.audit.replay import ReplayReport, replay
from duocthu_contracts import subjects as s
from duocthu_runtime import Bus, SealKeyError, utcnow
from duocthu_runtime.devstack import NO_STACK_HINT, ops_settings, stack_nats_url
from duocthu_runtime.seal import Keyring, VerdictKeySettings, dev_public_keys

app = typer.Typer(no_args_is_help=True, help="Explain, re-verify and shadow-replay turns from the audit stream.")

T = TypeVar("T")

NatsUrl = Annotated[str | None, typer.Option("--nats-url", envvar="NATS_URL", help="NATS server (default: the running stack's, found in --var-dir; ops user via NATS_USER/NATS_PASSWORD or NATS_CREDS)")]
VarDir = Annotated[Path, typer.Option("--var-dir", envvar="VAR_DIR", help="state directory of `duocthu up` (where its NATS is found)")]
Since = Annotated[str, typer.Option("--since", help="how far back to read, e.g. 24h, 7d")]


def _run(nats_url: str | None, var_dir: Path, work: Callable[[Bus], Awaitable[T]]) -> T:
    url = stack_nats_url(var_dir, nats_url)
    if url is None:
        typer.echo(f"error: no running stack found in {var_dir}: {NO_STACK_HINT}", err=True)
        raise typer.Exit(2)

    async def main() -> T:
        settings = ops_settings(url, var_dir)
        bus = Bus(settings, client_name="duocthu-audit")
        try:
            await bus.broker.connect()
        except (OSError, NatsError, FastStreamException) as exc:  # refused, unreachable, no servers
            typer.echo(f"error: cannot connect to NATS at {settings.nats_url}: {exc}", err=True)
            raise typer.Exit(2) from exc
        try:
            return await work(bus)
        finally:
            await bus.stop()

    return asyncio.run(main())


async def _turn(bus: Bus, turn_id: str, since: datetime) -> list[Recorded]:
    """The turn's messages from the audit stream and from the redacted-at-rest copies."""
    records: list[Recorded] = []
    for stream in (s.AUDIT_STREAM, s.AUDIT_REDACTED_STREAM):
        records += [r async for r in read_window(bus.js, stream, since=since) if r.turn_id == turn_id]
    return causal_order(records)


def _public_keys(var_dir: Path) -> Keyring:
    """The keys seals are checked with: ``VERDICT_PUBLIC_KEYS``, else the key of the stack in ``var_dir``."""
    text = VerdictKeySettings().verdict_public_keys or dev_public_keys(var_dir) or ""
    try:
        keyring = Keyring.parse(text)
    except SealKeyError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    if not keyring.keys:
        typer.echo("error: no public key to check the verifier's seals with: set VERDICT_PUBLIC_KEYS (every key "
                   f"the verifier sealed with in the window), or --var-dir to a stack's ({var_dir} has none)",
                   err=True)
        raise typer.Exit(2)
    return keyring


def _load_turn(nats_url: str | None, var_dir: Path, turn_id: str, since: str) -> list[Recorded]:
    start = utcnow() - parse_duration(since)
    chain = _run(nats_url, var_dir, lambda bus: _turn(bus, turn_id, start))
    if not chain:
        typer.echo(f"error: no messages for turn {turn_id} in the audit stream since {since}", err=True)
        raise typer.Exit(1)
    return chain


def _stage_of(record: Recorded) -> str:
    timings = record.document.get("stage_timings") or []
    return str(timings[-1]["stage"]) if timings else "gateway"


def _ms_of(record: Recorded) -> str:
    timings = record.document.get("stage_timings") or []
    return f"{timings[-1]['ms']:.1f} ms" if timings else ""


@app.command()
def show(
    turn_id: Annotated[str, typer.Argument(help="trace_id of the turn (the turn id)")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    since: Since = "30d",
    nats_url: NatsUrl = None,
    var_dir: VarDir = Path("var"),
) -> None:
    """A turn's whole message chain in causal order, with stage timings, decision, reason and citations."""
    chain = _load_turn(nats_url, var_dir, turn_id, since)
    summary = summarize(chain)
    if as_json:
        document: dict[str, Any] = {
            "summary": summary.__dict__,
            "messages": [
                {"seq": r.seq, "subject": r.subject, "time": r.time.isoformat(), "schema": r.schema,
                 "stage": _stage_of(r), "message_id": r.message_id, "causation_id": r.causation_id}
                for r in chain
            ],
        }
        typer.echo(json.dumps(document, ensure_ascii=False, indent=2, default=str))
        return
    typer.echo(f"turn {summary.turn_id}  correlation {summary.correlation_id}")
    typer.echo(f"query: {summary.query}")
    for r in chain:
        typer.echo(f"  #{r.seq:<6} {r.time.isoformat()}  {r.schema:<28} {_stage_of(r):<14} {_ms_of(r)}")
    sealed = f", sealed by {summary.sealed_by}" if summary.sealed_by else ", not sealed"
    typer.echo(f"decision: {summary.decision} ({summary.reason}) by {summary.completed_by}{sealed}")
    typer.echo(f"drafts: {summary.drafts}, rejections: {summary.rejections}")
    if summary.evidence_ids:
        typer.echo("evidence: " + ", ".join(summary.evidence_ids))
    for citation in summary.citations:
        typer.echo(f"  [{citation['index']}] {citation['drug_id']} / {citation['section_key']} "
                   f"pages {citation['printed_page_range']}")


@app.command("reverify")
def reverify_command(
    turn_id: Annotated[str | None, typer.Argument(help="one turn; omit with --since for a window")] = None,
    since: Since = "24h",
    nats_url: NatsUrl = None,
    var_dir: VarDir = Path("var"),
) -> None:
    """Re-run the verifier on recorded drafts and check every stored seal; exit 1 listing every disagreement."""
    from duocthu_cli.audit.reverify import ReverifyReport, reverify_chain
    from duocthu_verifier import configured_judge

    keyring = _public_keys(var_dir)
    judge = configured_judge()
    start = utcnow() - parse_duration(since)
    report = ReverifyReport()

    async def work(bus: Bus) -> None:
        records: list[Recorded] = []
        for stream in (s.AUDIT_STREAM, s.AUDIT_REDACTED_STREAM):
            records += [r async for r in read_window(bus.js, stream, since=start)
                        if turn_id is None or r.turn_id == turn_id]
        by_turn: dict[str, list[Recorded]] = {}
        for record in records:
            if record.turn_id:
                by_turn.setdefault(record.turn_id, []).append(record)
        for chain in by_turn.values():
            await reverify_chain(causal_order(chain), judge, report, keyring)

    _run(nats_url, var_dir, work)
    if turn_id is not None and report.drafts == 0:
        typer.echo(f"error: no recorded draft for turn {turn_id} since {since}", err=True)
        raise typer.Exit(1)
    typer.echo(f"re-verified {report.drafts} draft(s); verdicts compared: {report.compared_verdicts}; "
               f"seals checked: {report.seals} (keys {', '.join(sorted(keyring.keys))}); "
               f"judge: {judge.name if judge else 'not configured (deterministic checks only)'}")
    for d in report.disagreements:
        typer.echo(f"DISAGREE turn {d.turn_id} message {d.message_id}: {d.what}")
    if report.disagreements:
        raise typer.Exit(1)


@app.command()
def export(
    turn_id: Annotated[str, typer.Argument(help="trace_id of the turn")],
    out: Annotated[Path, typer.Option("--out", help="JSON Lines file to write")],
    since: Since = "30d",
    nats_url: NatsUrl = None,
    var_dir: VarDir = Path("var"),
) -> None:
    """Write the turn's recorded messages, verbatim, one JSON document per line."""
    chain = _load_turn(nats_url, var_dir, turn_id, since)
    with out.open("w", encoding="utf-8") as handle:
        for r in chain:
            line = {"stream": r.stream, "seq": r.seq, "subject": r.subject, "time": r.time.isoformat(),
                    "message": r.document}
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    typer.echo(f"{len(chain)} messages -> {out}")


def render_replay(report: ReplayReport) -> dict[str, Any]:
    return {
        "run_id": report.run_id,
        "since": report.since.isoformat(),
        "turns": len(report.diffs),
        "changed": len(report.changed),
        "diffs": [
            {"turn_id": d.turn_id, "query": d.query, "recorded": d.recorded, "replayed": d.replayed,
             "changes": d.changes}
            for d in report.diffs
        ],
    }


@app.command("replay")
def replay_command(  # noqa: PLR0917 - typer options
    since: Since = "24h",
    into: Annotated[str, typer.Option("--into", help="target lane (only 'shadow' exists)")] = "shadow",
    timeout: Annotated[float, typer.Option(help="seconds to wait for the replayed completions")] = 120.0,
    report_path: Annotated[Path | None, typer.Option("--report", help="also write the JSON report here")] = None,
    nats_url: NatsUrl = None,
    var_dir: VarDir = Path("var"),
) -> None:
    """Republish recorded requests on the shadow lane and diff decisions, reasons and cited chunks."""
    if into != "shadow":
        typer.echo("error: --into must be 'shadow' (replays never reach users)", err=True)
        raise typer.Exit(2)
    start = utcnow() - parse_duration(since)
    report = _run(nats_url, var_dir, lambda bus: replay(bus, start, timeout_s=timeout))
    document = render_replay(report)
    if report_path is not None:
        report_path.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")
    typer.echo(f"replayed {document['turns']} turns since {since}: {document['changed']} changed")
    for diff in report.changed:
        typer.echo(f"  {diff.turn_id}  {diff.query[:60]!r}")
        for change in diff.changes:
            typer.echo(f"      {change}")
    raise typer.Exit(1 if report.changed else 0)


async def _redact_older_than(bus: Bus, cutoff: datetime, include_query: bool, dry_run: bool) -> int:
    count = 0
    async with contextlib.aclosing(read_window(bus.js, s.AUDIT_STREAM, since=None)) as records:
        async for record in records:
            if record.time >= cutoff:
                break
            document, changed = redact(record.document, include_query=include_query)
            if not changed:
                continue
            count += 1
            if dry_run:
                continue
            headers = {"Nats-Msg-Id": f"{record.message_id}:redacted", "Duocthu-Original-Seq": str(record.seq)}
            await bus.js.publish(s.AUDIT_REDACTED_PREFIX + record.subject,
                                 json.dumps(document, ensure_ascii=False).encode(), headers=headers,
                                 stream=s.AUDIT_REDACTED_STREAM)
            await bus.js.delete_msg(s.AUDIT_STREAM, record.seq)
    return count


@app.command("redact")
def redact_command(
    older_than: Annotated[str, typer.Option("--older-than", help="redact messages stored before now minus this")] = "24h",
    include_query: Annotated[bool, typer.Option("--include-query", help="also replace the question text")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="count, change nothing")] = False,
    nats_url: NatsUrl = None,
    var_dir: VarDir = Path("var"),
) -> None:
    """Erase patient-context fields at rest: move a redacted copy to RAG_AUDIT_REDACTED, delete the original."""
    cutoff = utcnow() - parse_duration(older_than)
    count = _run(nats_url, var_dir, lambda bus: _redact_older_than(bus, cutoff, include_query, dry_run))
    verb = "would redact" if dry_run else "redacted"
    typer.echo(f"{verb} {count} messages stored before {cutoff.isoformat()}")
