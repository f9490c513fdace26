"""``duocthu``: one command for running, asking, and operating the service."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Annotated

import httpx
import typer

from duocthu_cli.stack import Stack, StackError

app = typer.Typer(no_args_is_help=True, add_completion=False, help="duocthu: drug formulary Q&A with citations.")


@app.command()
def up(  # noqa: PLR0917 - typer options
    port: Annotated[int, typer.Option(help="gateway HTTP port")] = 8080,
    var_dir: Annotated[Path, typer.Option(help="state directory (NATS store, index, logs)")] = Path("var"),
    nats_url: Annotated[str | None, typer.Option(envvar="NATS_URL", help="use this NATS instead of starting one")] = None,
    ready_timeout: Annotated[float, typer.Option(help="seconds to wait for /readyz")] = 300.0,
    sample_corpus: Annotated[bool, typer.Option(
        help="build, ingest and index the sample formulary before serving (skipped when already live)")] = True,
    corpus_timeout: Annotated[float, typer.Option(help="seconds to wait for the sample corpus to go live")] = 1800.0,
) -> None:
    """Start NATS (unless NATS_URL is set) and every service; stop all on Ctrl-C/SIGTERM."""
    from duocthu_cli.sample_corpus import SampleCorpusError, bootstrap_sample_corpus

    stack = Stack(var_dir=var_dir, gateway_port=port, nats_url=nats_url)
    stopping = False

    def _stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        bootstrap: Callable[[Stack], None] | None = None
        if sample_corpus:
            index_sample = bootstrap_sample_corpus(var_dir, timeout_s=corpus_timeout, echo=typer.echo)

            def bootstrap(running: Stack) -> None:
                index_sample(running.nats_url or "")

        typer.echo("starting duocthu …")
        stack.start(ready_timeout_s=ready_timeout, bootstrap=bootstrap,
                    ready_path="/readyz" if sample_corpus else "/healthz")
        typer.echo(f"duocthu is ready: {stack.url}  (logs in {var_dir / 'logs'}; Ctrl-C to stop)")
        while not stopping:
            for label in stack.supervise_once():
                typer.echo(f"restarted {label}", err=True)
            time.sleep(0.5)
    except (StackError, SampleCorpusError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    finally:
        typer.echo("stopping duocthu …")
        stack.stop()


@app.command("sample-corpus")
def sample_corpus_command(
    var_dir: Annotated[Path, typer.Option(help="state directory (the PDF goes here)")] = Path("var"),
) -> None:
    """Build the sample formulary PDF into the state directory unless it is up to date (`make run` does this)."""
    from duocthu_cli.sample_corpus import SampleCorpusError, prepare_sample_pdf

    try:
        sample = prepare_sample_pdf(var_dir, echo=typer.echo)
    except SampleCorpusError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"sample formulary: {sample.path} (sha256 {sample.sha256[:12]}…)")


def _pages(rng: list[int]) -> str:
    return f"{rng[0]}" if rng[0] == rng[1] else f"{rng[0]}–{rng[1]}"


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="câu hỏi (Vietnamese question)")],
    conversation: Annotated[str | None, typer.Option("--conversation", help="conversation id")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the raw JSON response")] = False,
    url: Annotated[str, typer.Option(envvar="DUOCTHU_URL", help="gateway base URL")] = "http://127.0.0.1:8080",
    timeout: Annotated[float, typer.Option(help="HTTP timeout in seconds")] = 60.0,
) -> None:
    """Send one question through the running gateway and print the answer with its citations."""
    body: dict[str, object] = {"query": question}
    if conversation:
        body["conversation_id"] = conversation
    try:
        response = httpx.post(f"{url}/v1/rag/query", json=body, timeout=timeout)
    except httpx.HTTPError as exc:
        typer.echo(f"error: cannot reach the gateway at {url}: {exc}", err=True)
        raise typer.Exit(2) from exc
    data = response.json()
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        raise typer.Exit(0 if response.status_code == 200 else 1)
    if response.status_code != 200:
        typer.echo(f"error {response.status_code}: {json.dumps(data.get('detail'), ensure_ascii=False)}", err=True)
        raise typer.Exit(1)
    typer.echo(f"Quyết định: {data['decision']} ({data['reason']})")
    if data.get("reason_message") and data["decision"] != "answerable":
        typer.echo(data["reason_message"])
    if data.get("answer"):
        typer.echo("")
        typer.echo(data["answer"])
    if data.get("quick_replies"):
        typer.echo("")
        typer.echo("Gợi ý trả lời: " + " | ".join(data["quick_replies"]))
    if data.get("citations"):
        typer.echo("")
        for cit in data["citations"]:
            typer.echo(
                f"[{cit['index']}] {cit['drug_name']} — {cit['section_title']} — "
                f"trang {_pages(cit['printed_page_range'])}"
            )
    typer.echo("")
    typer.echo(f"Lưu ý: {data['disclaimer']}")
    typer.echo(f"trace_id: {data['trace_id']}", err=True)


def run() -> None:  # pragma: no cover - console entry alias
    sys.exit(app())


contracts_app = typer.Typer(no_args_is_help=True, help="Message contracts: JSON Schema and AsyncAPI export.")
app.add_typer(contracts_app, name="contracts")


@contracts_app.command("export")
def contracts_export(
    check: Annotated[bool, typer.Option("--check", help="fail if the committed files are stale")] = False,
) -> None:
    """Write JSON Schema for every message and the AsyncAPI document into contracts/."""
    from duocthu_cli import contracts_export as export

    if check:
        stale = export.stale_files()
        for path in stale:
            typer.echo(f"stale: {path}", err=True)
        raise typer.Exit(1 if stale else 0)
    for path in export.write():
        typer.echo(str(path))

from duocthu_retrieval import index_cli  # noqa: E402

app.add_typer(index_cli, name="index")

from duocthu_cli.audit.cli import app as audit_app  # noqa: E402

app.add_typer(audit_app, name="audit")

from duocthu_ingest import ingest_cli  # noqa: E402

app.add_typer(ingest_cli, name="ingest")

from duocthu_cli.corpus_cli import app as corpus_app  # noqa: E402

app.add_typer(corpus_app, name="corpus")

from duocthu_cli.bench.cli import app as bench_app  # noqa: E402

app.add_typer(bench_app, name="bench")

from duocthu_cli.eval.cli import app as eval_app  # noqa: E402

app.add_typer(eval_app, name="eval")
