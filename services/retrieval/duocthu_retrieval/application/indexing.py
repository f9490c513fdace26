"""The indexer: the vector index as a projection of the ``CORPUS`` stream.

``apply`` takes one ``corpus.v1.batch.embedded`` message (in any order, any
number of times, on any replica), writes its points idempotently into the
release's own collection, records the batch in the collection's ledger, and
when the ledger shows every batch of every part it finalises the release:
count gate, payload indexes, manifest sidecar, and only then the live alias.
``rebuild`` replays one release's batches from the stream into a fresh
collection through the same steps, while queries keep reading the old one.

Bad releases (contradictory or malformed batches, a failed count gate) are
recorded as failed and announced once; they never touch the live alias.
Errors of the store itself propagate, so the stage redelivers the batch.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from duocthu_contracts.messages import (
    CorpusBatchEmbedded,
    CorpusBatchEmbeddedPayload,
    CorpusReleaseCompleted,
    CorpusReleaseResultPayload,
)
from duocthu_retrieval.domain.manifest import build_manifest
from duocthu_retrieval.domain.naming import collection_name
from duocthu_retrieval.domain.release import (
    BatchEntry,
    assess,
    check_consistent,
    merge_catalogs,
    release_corpus_sha256,
    validate_batch,
)
from duocthu_retrieval.errors import IndexConflict, RebuildFailed, ReleaseRejected
from duocthu_retrieval.ports import CorpusSource, ReleaseStore
from duocthu_runtime import get_logger, new_message

log = get_logger(__name__)

_COMPLETION_NS = uuid.UUID("a3c1f0de-2b8e-5c55-8d1e-7b0a6f4c2e19")


def new_build_tag() -> str:
    """The name suffix of a rebuild's fresh collection (time-ordered, so the newest sorts last)."""
    return "r" + datetime.now(UTC).strftime("%Y%m%d%H%M%S%f")


@dataclass(frozen=True)
class Cause:
    """The message a completion answers (for its envelope)."""

    message_id: str
    correlation_id: str


def completion_message(cause: Cause, payload: CorpusReleaseResultPayload, collection: str) -> CorpusReleaseCompleted:
    """A deterministic id per (release, collection, status): replicas and redeliveries publish one message."""
    key = f"{payload.release_id}/{collection}/{payload.status}"
    return new_message(CorpusReleaseCompleted, payload, correlation_id=cause.correlation_id,
                       causation_id=cause.message_id, message_id=uuid.uuid5(_COMPLETION_NS, key).hex)


class Indexer:
    def __init__(self, index: ReleaseStore, *, keep_collections: int = 2) -> None:
        self.index = index
        self.keep_collections = keep_collections

    def collection_for(self, release_id: str, build: str | None = None) -> str:
        return collection_name(self.index.prefix, release_id, build)

    # ------------------------------------------------------------------ the stream's own build

    async def apply(self, message: CorpusBatchEmbedded) -> list[CorpusReleaseCompleted]:
        batch = message.payload
        cause = Cause(message.message_id, message.correlation_id)
        collection = self.collection_for(batch.release_id)
        if await self.index.failure(collection) is not None:
            log.info("batch_of_failed_release_ignored", release_id=batch.release_id, part=batch.part_index,
                     batch=batch.batch_index)
            return []
        if await self.index.manifest(collection) is not None:
            # Already finalised (a redelivery, or a finalise interrupted before its publish): go live again
            # idempotently and re-announce; the deterministic message id de-duplicates the announcement.
            return await self._go_live(collection, batch.release_id, cause)
        try:
            await self.add_batch(collection, batch)
            entries = await self.index.ledger(collection)
            progress = assess(entries)
        except ReleaseRejected as exc:
            return [await self.fail(collection, batch.release_id, str(exc), cause)]
        if not progress.complete:
            log.info("release_progress", release_id=batch.release_id, batches=progress.received_batches,
                     missing=len(progress.missing))
            return []
        return await self.finalize(collection, batch.release_id, cause)

    async def add_batch(self, collection: str, batch: CorpusBatchEmbeddedPayload) -> None:
        """Write one batch's points and its ledger entry (raises :class:`ReleaseRejected`)."""
        validate_batch(batch)
        entry = BatchEntry.of(batch)
        check_consistent(await self.index.ledger(collection), entry, batch.release_id)
        try:
            await self.index.ensure_release_collection(collection, batch.model)
        except IndexConflict as exc:
            raise ReleaseRejected(str(exc)) from exc
        await self.index.upsert_chunks(collection, batch.release_id, batch.chunks)
        await self.index.record_batch(collection, entry)

    # ------------------------------------------------------------------ gates, manifest, alias

    async def finalize(self, collection: str, release_id: str, cause: Cause) -> list[CorpusReleaseCompleted]:
        entries = await self.index.ledger(collection)
        try:
            progress = assess(entries)
            if not progress.complete:
                raise ReleaseRejected(f"release {release_id} is incomplete: missing {', '.join(progress.missing)}")
            count = await self.index.count(collection)
            if count != progress.expected_chunks:
                raise ReleaseRejected(
                    f"count gate: collection {collection} holds {count} points, the release announces "
                    f"{progress.expected_chunks} chunks (duplicate chunk ids?)"
                )
        except ReleaseRejected as exc:
            return [await self.fail(collection, release_id, str(exc), cause)]
        await self.index.create_payload_indexes(collection)
        model = entries[0].model
        manifest = build_manifest(
            release_id=release_id, collection=collection, model=model,
            corpus_sha256=release_corpus_sha256(entries), source_sha256=entries[0].source_sha256,
            chunk_count=progress.expected_chunks,
        )
        await self.index.write_manifest(collection, manifest)
        return await self._go_live(collection, release_id, cause)

    async def _go_live(self, collection: str, release_id: str, cause: Cause) -> list[CorpusReleaseCompleted]:
        found = await self.index.manifest(collection)
        if found is None:
            raise RuntimeError(f"collection {collection} has no manifest to go live with")
        manifest, indexed_at = found
        live = await self.index.live_collection()
        if live is not None and live != collection:
            current = await self.index.manifest(live)
            if current is not None and current[1] > indexed_at:
                log.warning("release_superseded", release_id=release_id, collection=collection, live=live)
                return []
        if live != collection:
            await self.index.switch_alias(collection)
            log.info("release_live", release_id=release_id, collection=collection, previous=live,
                     chunks=manifest.chunk_count)
        await self.drop_stale(collection)
        entries = await self.index.ledger(collection)
        catalog = merge_catalogs(entries, manifest.corpus_sha256)
        payload = CorpusReleaseResultPayload(release_id=release_id, status="live", manifest=manifest, catalog=catalog)
        return [completion_message(cause, payload, collection)]

    async def fail(self, collection: str, release_id: str, error: str, cause: Cause) -> CorpusReleaseCompleted:
        log.error("release_failed", release_id=release_id, collection=collection, error=error)
        await self.index.record_failure(collection, error)
        if await self.index.exists(collection) and await self.index.live_collection() != collection:
            await self.index.drop(collection, keep_sidecar=True)
        payload = CorpusReleaseResultPayload(release_id=release_id, status="failed", error=error)
        return completion_message(cause, payload, collection)

    async def drop_stale(self, live: str) -> None:
        """Keep the live collection and the newest finished ones up to ``keep_collections``."""
        finished: list[tuple[str, str]] = []
        for name in await self.index.release_collections():
            if name == live:
                continue
            found = await self.index.manifest(name)
            if found is not None:
                finished.append((found[1], name))
        finished.sort(reverse=True)
        for _, name in finished[self.keep_collections - 1:]:
            log.info("collection_dropped", collection=name)
            await self.index.drop(name)

    # ------------------------------------------------------------------ replay

    async def rebuild_target(self, source: CorpusSource, release_id: str | None) -> str:
        """The release a rebuild replays: the one asked for, else the live one, else the stream's last live one."""
        if release_id:
            return release_id
        manifest = await self.index.live_manifest()
        target = manifest.release_id if manifest is not None else await source.latest_live_release()
        if target is None:
            raise RebuildFailed("nothing to rebuild: no live release in the index or in the CORPUS stream")
        return target

    async def rebuild(self, source: CorpusSource, *, release_id: str, build: str) -> CorpusReleaseCompleted:
        """Replay ``release_id`` from ``source`` into the fresh collection ``…__<build>``, then go live."""
        collection = self.collection_for(release_id, build)
        cause = Cause(message_id=f"rebuild-{build}", correlation_id=f"rebuild:{collection}")
        seen: set[tuple[int, int]] = set()
        log.info("rebuild_started", release_id=release_id, collection=collection)
        try:
            async for message in source.batches(release_id):
                batch = message.payload
                if (batch.part_index, batch.batch_index) in seen:
                    continue
                seen.add((batch.part_index, batch.batch_index))
                await self.add_batch(collection, batch)
        except ReleaseRejected as exc:
            return await self.fail(collection, release_id, f"rebuild: {exc}", cause)
        if not seen:
            return await self.fail(collection, release_id,
                                   f"rebuild: the CORPUS stream holds no batch of release {release_id}", cause)
        results = await self.finalize(collection, release_id, cause)
        if not results:
            return await self.fail(collection, release_id, "rebuild: superseded by a newer release", cause)
        return results[0]
