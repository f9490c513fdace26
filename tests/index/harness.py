"""Running the real retrieval service (bus, stage, replica) inside a test, and watching the stream."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy

from duocthu_contracts import subjects as s
from duocthu_contracts.messages import CorpusReleaseCompleted
from duocthu_retrieval.main import RetrievalReplica, build_spec
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime import Bus, RuntimeSettings, decode
from duocthu_runtime.service import ServiceRuntime, build_app, build_runtime


@asynccontextmanager
async def running_retrieval(settings: RetrievalSettings) -> AsyncIterator[tuple[ServiceRuntime, RetrievalReplica]]:
    replica = RetrievalReplica(settings)
    runtime = build_runtime(build_spec(settings, replica))
    app = build_app(runtime)
    async with runtime.lifespan(app):
        yield runtime, replica


class Completions:
    """Every ``corpus.v1.release.completed`` message stored in the stream, as it arrives."""

    def __init__(self) -> None:
        self.messages: list[CorpusReleaseCompleted] = []
        self._changed = asyncio.Event()

    async def on_msg(self, msg: Msg) -> None:
        self.messages.append(decode(msg.data, CorpusReleaseCompleted))
        self._changed.set()

    def of(self, release_id: str) -> list[CorpusReleaseCompleted]:
        return [m for m in self.messages if m.payload.release_id == release_id]

    async def wait(self, predicate: Callable[[CorpusReleaseCompleted], bool],
                   timeout_s: float = 30.0) -> CorpusReleaseCompleted:
        async def find() -> CorpusReleaseCompleted:
            while True:
                for message in self.messages:
                    if predicate(message):
                        return message
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(find(), timeout_s)


@asynccontextmanager
async def watching(nats_url: str) -> AsyncIterator[tuple[Bus, Completions]]:
    bus = Bus(RuntimeSettings(nats_url=nats_url), client_name="index-tests")
    await bus.connect()
    completions = Completions()
    sub = await bus.js.subscribe(CorpusReleaseCompleted.SUBJECT, stream=s.CORPUS_STREAM, ordered_consumer=True,
                                 deliver_policy=DeliverPolicy.ALL, cb=completions.on_msg)
    try:
        yield bus, completions
    finally:
        with contextlib.suppress(Exception):
            await sub.unsubscribe()
        await bus.stop()
