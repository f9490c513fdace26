"""``duocthu index …``: operate the vector index (mounted by the duocthu command).

The commands parse options and report; what they act on is handed in by the
composition root (:func:`duocthu_retrieval.main.index_cli`): a client of the
running replicas, and this process's own index side for when none runs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from duocthu_contracts.messages import CorpusReleaseCompleted
from duocthu_retrieval.application import operations
from duocthu_retrieval.application.maintenance import IndexMaintenance
from duocthu_retrieval.errors import IndexUnavailable, OperationFailed, RebuildFailed
from duocthu_retrieval.ports import Replicas
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime import Bus, JobProgress
from duocthu_runtime.devstack import NatsServer, embedded_authorization, ops_settings, stack_nats_url

T = TypeVar("T")

#: This process's index side for the given settings (and the bus a rebuild reads and announces on).
OpenLocal = Callable[[RetrievalSettings, Bus | None], AbstractAsyncContextManager[IndexMaintenance]]
OpenReplicas = Callable[[Bus], Replicas]

VarDir = Annotated[Path, typer.Option(help="state directory of `duocthu up` (NATS store, local Qdrant)")]
NatsUrl = Annotated[str | None, typer.Option(envvar="NATS_URL", help="NATS to use (default: the running stack's)")]


async def _with_bus(var_dir: Path, nats_url: str | None, work: Callable[[Bus], Awaitable[T]]) -> T:
    """Run ``work(bus)`` on the given NATS, the running stack's, or a private server over the same store."""
    url = stack_nats_url(var_dir, nats_url)
    server = None
    if url is None:
        authorization, _ = embedded_authorization(var_dir / "nats")  # the same identities as `duocthu up`
        server = NatsServer(store_dir=var_dir / "nats", log_file=var_dir / "logs" / "nats-index.log",
                            authorization=authorization).start()
        url = server.url
    bus = Bus(ops_settings(url, var_dir), client_name="duocthu-index")
    try:
        await bus.connect()
        return await work(bus)
    finally:
        await bus.stop()
        if server is not None:
            server.stop()


def index_commands(open_local: OpenLocal, open_replicas: OpenReplicas) -> typer.Typer:
    app = typer.Typer(no_args_is_help=True, help="The vector index: status and rebuild from the corpus stream.")

    @app.command("rebuild")
    def rebuild_command(
        release: Annotated[str | None, typer.Option(help="release id to replay (default: the live one)")] = None,
        var_dir: VarDir = Path("var"),
        nats_url: NatsUrl = None,
        timeout: Annotated[float, typer.Option(help="seconds to wait for the rebuilt release")] = 1800.0,
    ) -> None:
        """Replay the CORPUS stream into a fresh collection and switch the live alias; queries keep working."""
        settings = RetrievalSettings(var_dir=var_dir)

        async def work(bus: Bus) -> CorpusReleaseCompleted:
            return await operations.rebuild(open_replicas(bus), lambda: open_local(settings, bus),
                                            release_id=release, timeout_s=timeout, echo=typer.echo)

        try:
            with JobProgress("index rebuild", unit="chunks") as progress:
                result = asyncio.run(_with_bus(var_dir, nats_url, work))
                if result.payload.manifest is not None:
                    progress.update(result.payload.manifest.chunk_count, result.payload.manifest.chunk_count)
        except (OperationFailed, RebuildFailed, IndexUnavailable) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from exc
        payload = result.payload
        if payload.status != "live" or payload.manifest is None:
            typer.echo(f"error: rebuild of {payload.release_id} failed: {payload.error}", err=True)
            raise typer.Exit(1)
        typer.echo(f"live: release {payload.release_id} in {payload.manifest.collection} "
                   f"({payload.manifest.chunk_count} chunks, {payload.manifest.model_id})")

    @app.command("status")
    def status_command(var_dir: VarDir = Path("var"), nats_url: NatsUrl = None) -> None:
        """Print the live release's manifest and whether it matches the query embedder (JSON)."""
        settings = RetrievalSettings(var_dir=var_dir)
        url = stack_nats_url(var_dir, nats_url)

        async def work() -> str:
            if url is None:
                status = await operations.index_status(None, lambda: open_local(settings, None))
                return status.model_dump_json(indent=2)
            bus = Bus(ops_settings(url, var_dir), client_name="duocthu-index")
            await bus.connect()
            try:
                status = await operations.index_status(open_replicas(bus), lambda: open_local(settings, None))
            finally:
                await bus.stop()
            return status.model_dump_json(indent=2)

        try:
            text = asyncio.run(work())
        except IndexUnavailable as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from exc
        typer.echo(text)
        raise typer.Exit(0 if json.loads(text)["ready"] else 1)

    return app
