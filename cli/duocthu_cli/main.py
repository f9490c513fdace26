"""``duocthu``: one command for running, asking, and operating the service.

Start-up imports only what the command line itself needs: each command
imports its own modules, and the command groups of the services and tools
(``index``, ``ingest``, ``audit``, ``corpus``, ``bench``, ``eval``, ``keys``) are imported
only when one of them runs.  ``duocthu ask`` does not even load this module:
the executable (:mod:`duocthu_cli.entry`) hands it to :mod:`duocthu_cli.ask`.
"""

from __future__ import annotations

import importlib
import signal
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    from duocthu_cli.stack.supervisor import Stack

#: Command groups imported on use: name -> (module, attribute holding its Typer app).
LAZY_GROUPS: dict[str, tuple[str, str]] = {
    "index": ("duocthu_retrieval", "index_cli"),
    "audit": ("duocthu_cli.audit.cli", "app"),
    "ingest": ("duocthu_ingest", "ingest_cli"),
    "corpus": ("duocthu_cli.stack.corpus_cli", "app"),
    "bench": ("duocthu_cli.bench.cli", "app"),
    "eval": ("duocthu_cli.eval.cli", "app"),
    "keys": ("duocthu_cli.keys_cli", "app"),
}


class LazyGroups(TyperGroup):
    """The top-level group: its own commands, plus :data:`LAZY_GROUPS` imported when asked for."""

    # ``Any``: the context and command classes are click's, vendored by typer under a private name.
    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *LAZY_GROUPS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in LAZY_GROUPS:
            return super().get_command(ctx, cmd_name)
        module, attribute = LAZY_GROUPS[cmd_name]
        group = typer.main.get_command(getattr(importlib.import_module(module), attribute))
        group.name = cmd_name
        return group


app = typer.Typer(cls=LazyGroups, no_args_is_help=True, add_completion=False,
                  help="duocthu: drug formulary Q&A with citations.")


@app.command()
def up(  # noqa: PLR0917 - typer options
    port: Annotated[int, typer.Option(help="gateway HTTP port")] = 8080,
    var_dir: Annotated[Path, typer.Option(help="state directory (NATS store, index, logs)")] = Path("var"),
    nats_url: Annotated[str | None, typer.Option(envvar="NATS_URL", help="use this NATS instead of starting one")] = None,
    ready_timeout: Annotated[float, typer.Option(help="seconds to wait for /readyz")] = 300.0,
    sample_corpus: Annotated[bool, typer.Option(
        help="build, ingest and index the sample formulary before serving (skipped when already live)")] = True,
    corpus_timeout: Annotated[float, typer.Option(help="seconds to wait for the sample corpus to go live")] = 1800.0,
    corpus: Annotated[str, typer.Option(help=(
        "which book to serve: 'sample' or 'synthetic:N' (N generated monographs, as `duocthu corpus synth`; "
        "the real book's size is synthetic:684)"))] = "sample",
    replicas: Annotated[int, typer.Option(min=1, help=(
        "processes per pipeline stage and gateways (they share the port); with the embedded index one retrieval "
        "owns it and the others wait as warm standbys"))] = 1,
) -> None:
    """Start NATS (unless NATS_URL is set) and every service, restart whatever dies; stop all on Ctrl-C/SIGTERM."""
    from duocthu_cli.stack.corpus_source import parse_corpus_source, prepare_corpus_pdf
    from duocthu_cli.stack.sample_corpus import SampleCorpusError, bootstrap_sample_corpus
    from duocthu_cli.stack.supervisor import SERVICES, Stack, StackError

    def log(line: str) -> None:
        typer.echo(f"{time.strftime('%H:%M:%S')} {line}", err=True)

    stack = Stack(var_dir=var_dir, gateway_port=port, nats_url=nats_url, log=log,
                  replicas=dict.fromkeys(SERVICES, replicas))
    stopping = False
    starting = True

    def _stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        if starting:
            # start-up blocks for minutes (readiness, a first index): interrupt it; the finally stops every child
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        bootstrap: Callable[[Stack], None] | None = None
        if sample_corpus:
            from duocthu_cli.stack.sample_embeddings import seed_embedding_cache

            # before the ingest worker opens its cache: the sample's shipped vectors are hits, not work
            source = parse_corpus_source(corpus)
            seeded = seed_embedding_cache(var_dir) if source.kind == "sample" else 0
            if seeded:
                typer.echo(f"embedding cache: {seeded} shipped sample vectors added")
            index_sample = bootstrap_sample_corpus(var_dir, timeout_s=corpus_timeout, echo=typer.echo,
                                                   pdf=prepare_corpus_pdf(var_dir, source, typer.echo))

            def bootstrap(running: Stack) -> None:
                index_sample(running.nats_url or "")

        typer.echo("starting duocthu …")
        stack.start(ready_timeout_s=ready_timeout, bootstrap=bootstrap,
                    ready_path="/readyz" if sample_corpus else "/healthz")
        typer.echo(f"duocthu is ready: {stack.url}  (logs in {var_dir / 'logs'}; Ctrl-C to stop)")
        starting = False
        while not stopping:
            stack.supervise_once()  # logs every crash and restart itself
            time.sleep(0.5)
    except (StackError, SampleCorpusError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    except KeyboardInterrupt:
        typer.echo("stopped while starting", err=True)
        raise typer.Exit(130) from None
    finally:
        starting = False  # a second signal must not interrupt the stop below
        typer.echo("stopping duocthu …")
        stack.stop()


@app.command("sample-corpus")
def sample_corpus_command(
    var_dir: Annotated[Path, typer.Option(help="state directory (the PDF goes here)")] = Path("var"),
) -> None:
    """Build the sample formulary PDF into the state directory unless it is up to date (`make run` does this)."""
    from duocthu_cli.stack.sample_corpus import SampleCorpusError, prepare_sample_pdf

    try:
        sample = prepare_sample_pdf(var_dir, echo=typer.echo)
    except SampleCorpusError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"sample formulary: {sample.path} (sha256 {sample.sha256[:12]}…)")


@app.command(add_help_option=False, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def ask(ctx: typer.Context) -> None:
    """Send one question through the running gateway and print the answer with its citations (ask --help)."""
    from duocthu_cli.ask import main as ask_main

    raise typer.Exit(ask_main(ctx.args))


contracts_app = typer.Typer(no_args_is_help=True, help="Message contracts: JSON Schema and AsyncAPI export; NATS permissions into the deploy configs.")
app.add_typer(contracts_app, name="contracts")


@contracts_app.command("export")
def contracts_export(
    check: Annotated[bool, typer.Option("--check", help="fail if the committed files are stale")] = False,
) -> None:
    """Write JSON Schema for every message and the AsyncAPI document into contracts/, and the NATS permission
    table into the deploy configs (deploy/compose/nats.conf, deploy/k8s/base/nats.yaml)."""
    from duocthu_cli.export import contracts as export
    from duocthu_cli.export import nats_config

    if check:
        stale = export.stale_files() + nats_config.stale_files()
        for path in stale:
            typer.echo(f"stale: {path}", err=True)
        raise typer.Exit(1 if stale else 0)
    for path in [*export.write(), *nats_config.write()]:
        typer.echo(str(path))
