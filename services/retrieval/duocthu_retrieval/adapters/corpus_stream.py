"""Reading the ``CORPUS`` JetStream stream back: the source of an index rebuild.

The index is a projection of this stream (DESIGN.md), so a rebuild needs no
other input: it reads every ``corpus.v1.batch.embedded`` message up to the
stream's current end and keeps those of the release it rebuilds.  An ordered
ephemeral consumer is used: nothing is acked, no durable state is created,
and the live indexer's durable consumer is not disturbed.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.js.api import DeliverPolicy
from nats.js.errors import NotFoundError

from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import CorpusBatchEmbedded, CorpusReleaseCompleted
from duocthu_runtime import MessageRejected, decode, get_logger, subject_for_type

log = get_logger(__name__)

M = TypeVar("M", bound=Message)


class CorpusStream:
    def __init__(self, js: JetStreamContext, *, read_timeout_s: float = 10.0) -> None:
        self.js = js
        self.read_timeout_s = read_timeout_s

    async def _last_sequence(self, subject: str) -> int:
        try:
            last = await self.js.get_last_msg(s.CORPUS_STREAM, subject)
        except NotFoundError:
            return 0
        return int(last.seq or 0)

    async def read(self, cls: type[M]) -> AsyncIterator[M]:
        """Every stored ``cls`` message, oldest first, up to the end of the stream at call time."""
        subject = subject_for_type(cls)
        end = await self._last_sequence(subject)
        if end == 0:
            return
        sub = await self.js.subscribe(subject, stream=s.CORPUS_STREAM, ordered_consumer=True,
                                      deliver_policy=DeliverPolicy.ALL)
        try:
            while True:
                msg = await sub.next_msg(timeout=self.read_timeout_s)
                try:
                    yield decode(msg.data, cls)
                except MessageRejected as exc:
                    log.warning("corpus_message_skipped", subject=subject, reason=exc.reason)
                if msg.metadata.sequence.stream >= end:
                    break
        finally:
            with contextlib.suppress(NatsError):
                await sub.unsubscribe()

    async def batches(self, release_id: str) -> AsyncIterator[CorpusBatchEmbedded]:
        async for message in self.read(CorpusBatchEmbedded):
            if message.payload.release_id == release_id:
                yield message

    async def latest_live_release(self) -> str | None:
        latest: str | None = None
        async for message in self.read(CorpusReleaseCompleted):
            if message.payload.status == "live":
                latest = message.payload.release_id
        return latest
