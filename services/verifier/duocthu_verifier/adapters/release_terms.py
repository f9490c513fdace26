"""The live release's term statistics, kept by every replica as a projection of the corpus stream.

Specificity is read from the release the answers come from (``terms.py``),
so each replica counts the chunks of every release on the ``CORPUS`` stream
— ``corpus.v1.batch.embedded`` carries them — and makes a release's counts
current when ``corpus.v1.release.completed`` announces it live with exactly
as many chunks as were counted.  One ordered ephemeral consumer over
``corpus.>`` from the start of the stream keeps batches before their
release's completion (stream order), needs no durable state, and rebuilds
the same statistics on any replica and after any restart, the way the index
itself is a projection of the stream.  The verifier holds no other copy.

Until a live release has been counted, ``current`` is ``None`` and the term
check reads every new term as specific (fail closed); readiness says so.
"""

from __future__ import annotations

from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy

from duocthu_contracts import subjects as s
from duocthu_contracts.messages import (
    CorpusBatchEmbedded,
    CorpusBatchEmbeddedPayload,
    CorpusReleaseCompleted,
    CorpusReleaseResultPayload,
)
from duocthu_runtime import Bus, MessageRejected, decode, get_logger, subject_for_type
from duocthu_verifier.domain.terms import Background, TermContext, TermCounter, TermStatistics

log = get_logger(__name__)


class LiveTermStatistics:
    """Implements :class:`duocthu_verifier.ports.ReleaseTerms`: the statistics of the live release, with the
    everyday-word frequencies the composition root hands in."""

    def __init__(self, current: TermStatistics | None = None, *, background: Background | None = None,
                 background_id: str = "") -> None:
        self.current = current
        self.background = background
        self.background_id = background_id
        self._counting: dict[str, TermCounter] = {}

    def context(self) -> TermContext:
        return TermContext(self.current, self.background, self.background_id)

    def on_batch(self, batch: CorpusBatchEmbeddedPayload) -> None:
        counter = self._counting.setdefault(batch.release_id, TermCounter())
        for embedded in batch.chunks:
            counter.add(embedded.chunk.chunk_id, embedded.chunk.text)

    def on_release(self, result: CorpusReleaseResultPayload) -> None:
        counter = self._counting.pop(result.release_id, None)
        if result.status != "live" or result.manifest is None:
            return
        if counter is None or counter.documents != result.manifest.chunk_count:
            counted = counter.documents if counter else 0
            log.warning("term_statistics_incomplete", release_id=result.release_id, counted=counted,
                        announced=result.manifest.chunk_count)
            return
        self.current = counter.finish(result.release_id)
        log.info("term_statistics_live", release_id=result.release_id, documents=self.current.documents,
                 terms=len(self.current.frequency))

    async def on_message(self, msg: Msg) -> None:
        try:
            if msg.subject == subject_for_type(CorpusBatchEmbedded):
                self.on_batch(decode(msg.data, CorpusBatchEmbedded).payload)
            elif msg.subject == subject_for_type(CorpusReleaseCompleted):
                self.on_release(decode(msg.data, CorpusReleaseCompleted).payload)
        except MessageRejected as exc:
            log.error("corpus_message_rejected", subject=msg.subject, reason=exc.reason)

    async def watch(self, bus: Bus) -> None:
        await bus.js.subscribe(s.CORPUS_SUBJECTS[0], stream=s.CORPUS_STREAM, ordered_consumer=True,
                               deliver_policy=DeliverPolicy.ALL, cb=self.on_message)

    async def ready(self) -> tuple[bool, str]:
        """Always ready (the check fails closed without statistics); the detail says which release is counted."""
        if self.current is None:
            return True, "no live release counted yet: every new term in a claim is treated as specific"
        return True, f"term statistics of release {self.current.release_id}: {self.current.documents} chunks"
