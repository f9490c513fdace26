"""``duocthu index …``: operate the Qdrant index (mounted by the duocthu command).

The Qdrant client and the indexer are imported inside the commands: every
``duocthu`` invocation imports this module to mount it, and should not pay
for them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.nats_server import NatsServer, discover_running
from duocthu_runtime.settings import RuntimeSettings

if TYPE_CHECKING:
    from duocthu_contracts.messages import CorpusReleaseCompleted

index_app = typer.Typer(no_args_is_help=True, help="The vector index: status and rebuild from the corpus stream.")

T = TypeVar("T")

VarDir = Annotated[Path, typer.Option(help="state directory of `duocthu up` (NATS store, local Qdrant)")]
NatsUrl = Annotated[str | None, typer.Option(envvar="NATS_URL", help="NATS to use (default: the running stack's)")]


async def _with_bus(var_dir: Path, nats_url: str | None, work: Callable[[Bus], Awaitable[T]]) -> T:
    """Run ``work(bus)`` on the given NATS, the running stack's, or a private server over the same store."""
    url = nats_url or discover_running(var_dir / "nats")
    server = None
    if url is None:
        server = NatsServer(store_dir=var_dir / "nats", log_file=var_dir / "logs" / "nats-index.log").start()
        url = server.url
    bus = Bus(RuntimeSettings(nats_url=url), client_name="duocthu-index")
    try:
        await bus.connect()
        return await work(bus)
    finally:
        await bus.stop()
        if server is not None:
            server.stop()


@index_app.command("rebuild")
def rebuild_command(
    release: Annotated[str | None, typer.Option(help="release id to replay (default: the live one)")] = None,
    var_dir: VarDir = Path("var"),
    nats_url: NatsUrl = None,
    timeout: Annotated[float, typer.Option(help="seconds to wait for the rebuilt release")] = 1800.0,
) -> None:
    """Replay the CORPUS stream into a fresh collection and switch the live alias; queries keep working."""
    from duocthu_retrieval.adapters.qdrant_index import IndexUnavailable
    from duocthu_retrieval.indexing import RebuildFailed
    from duocthu_retrieval.operations import OperationFailed, rebuild
    from duocthu_retrieval.settings import RetrievalSettings

    settings = RetrievalSettings(var_dir=var_dir)

    async def work(bus: Bus) -> CorpusReleaseCompleted:
        return await rebuild(bus, settings, release_id=release, timeout_s=timeout, echo=typer.echo)

    try:
        result = asyncio.run(_with_bus(var_dir, nats_url, work))
    except (OperationFailed, RebuildFailed, IndexUnavailable) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    payload = result.payload
    if payload.status != "live" or payload.manifest is None:
        typer.echo(f"error: rebuild of {payload.release_id} failed: {payload.error}", err=True)
        raise typer.Exit(1)
    typer.echo(f"live: release {payload.release_id} in {payload.manifest.collection} "
               f"({payload.manifest.chunk_count} chunks, {payload.manifest.model_id})")


@index_app.command("status")
def status_command(var_dir: VarDir = Path("var"), nats_url: NatsUrl = None) -> None:
    """Print the live release's manifest and whether it matches the query embedder (JSON)."""
    from duocthu_retrieval.adapters.qdrant_index import IndexUnavailable
    from duocthu_retrieval.operations import request_status, status_in_process
    from duocthu_retrieval.settings import RetrievalSettings

    settings = RetrievalSettings(var_dir=var_dir)
    url = nats_url or discover_running(var_dir / "nats")

    async def work() -> str:
        if url is not None:
            bus = Bus(RuntimeSettings(nats_url=url), client_name="duocthu-index")
            await bus.connect()
            try:
                status = await request_status(bus)
            finally:
                await bus.stop()
            if status is not None:
                return status.model_dump_json(indent=2)
        return (await status_in_process(settings)).model_dump_json(indent=2)

    try:
        text = asyncio.run(work())
    except IndexUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(text)
    raise typer.Exit(0 if json.loads(text)["ready"] else 1)
