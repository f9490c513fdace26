"""Rebuilding the index from the CORPUS stream: through the running service, or in-process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duocthu_contracts.rpc import IndexRebuildReply, IndexRebuildRequest, IndexStatusReply, IndexStatusRequest
from duocthu_providers.embedding.cache import CachingEmbedder
from duocthu_retrieval.adapters.edge_index import EdgeIndex
from duocthu_retrieval.adapters.qdrant_index import QdrantIndex
from duocthu_retrieval.domain.search import SearchFilter
from duocthu_retrieval.errors import IndexUnavailable
from duocthu_retrieval.main import index_cli, open_index
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime.devstack import NatsServer
from tests.fixtures.index import IndexCorpus
from tests.index.harness import running_retrieval, watching


@pytest.fixture
def settings(index_settings: RetrievalSettings, fresh_nats: NatsServer) -> RetrievalSettings:
    return index_settings.model_copy(update={"nats_url": fresh_nats.url, "bus_fetch_timeout_s": 0.5})


async def test_rebuild_through_the_service_while_queries_keep_working(
        settings: RetrievalSettings, index_corpus: IndexCorpus, index_embedder: CachingEmbedder) -> None:
    query = index_embedder.embed_query("thuốc hạ sốt")
    async with running_retrieval(settings) as (runtime, service), watching(settings.nats_url) as (bus, seen):
        for message in index_corpus.batches("rel-1", batch_size=3):  # many batches: a rebuild that takes a while
            await bus.publish(message)
        await seen.wait(lambda m: m.payload.release_id == "rel-1")
        raw = await bus.broker.request(IndexRebuildRequest().model_dump_json().encode(), IndexRebuildRequest.SUBJECT,
                                       timeout=10)
        reply = IndexRebuildReply.model_validate_json(raw.body)
        assert reply.accepted and reply.release_id == "rel-1"
        assert reply.collection is not None and reply.collection.startswith("duocthu__rel-1__r")
        second = await bus.broker.request(b"{}", IndexRebuildRequest.SUBJECT, timeout=10)
        refused = IndexRebuildReply.model_validate_json(second.body)
        assert not refused.accepted and "already running" in (refused.error or "")
        answered = 0
        while service.maintenance.rebuilding is not None:  # queries during the rebuild read the old collection
            hits = await service.index.dense_search(query, SearchFilter(), limit=3)
            assert hits and hits[0].chunk.drug_id == "paracetamol"
            assert (await runtime.readiness())[0]
            answered += 1
            await asyncio.sleep(0)
        assert answered > 0
        done = await seen.wait(lambda m: m.correlation_id == f"rebuild:{reply.collection}")
        assert done.payload.status == "live", done.payload.error
        assert done.payload.manifest is not None and done.payload.manifest.collection == reply.collection
        assert await service.index.live_collection() == reply.collection
        assert await service.index.count(reply.collection) == len(index_corpus.chunks)
        assert set(await service.index.release_collections()) == {"duocthu__rel-1", reply.collection}
        hits = await service.index.dense_search(query, SearchFilter(), limit=3)
        assert hits[0].chunk.drug_id == "paracetamol"
        status_raw = await bus.broker.request(IndexStatusRequest().model_dump_json().encode(), IndexStatusRequest.SUBJECT,
                                              timeout=5)
        status = IndexStatusReply.model_validate_json(status_raw.body)
        assert status.ready and status.collection == reply.collection
        assert status.point_count == len(index_corpus.chunks) and status.rebuild_in_progress is None


async def test_rebuilding_a_release_the_stream_does_not_hold_fails_cleanly(
        settings: RetrievalSettings, index_corpus: IndexCorpus) -> None:
    async with running_retrieval(settings) as (_, service), watching(settings.nats_url) as (bus, seen):
        for message in index_corpus.batches("rel-1", batch_size=64):
            await bus.publish(message)
        await seen.wait(lambda m: m.payload.release_id == "rel-1")
        raw = await bus.broker.request(IndexRebuildRequest(release_id="rel-missing").model_dump_json().encode(),
                                       IndexRebuildRequest.SUBJECT, timeout=10)
        reply = IndexRebuildReply.model_validate_json(raw.body)
        assert reply.accepted
        done = await seen.wait(lambda m: m.payload.release_id == "rel-missing")
        assert done.payload.status == "failed"
        assert "holds no batch of release rel-missing" in (done.payload.error or "")
        assert await service.index.live_collection() == "duocthu__rel-1"


def test_cli_rebuilds_in_process_when_no_service_runs(tmp_path: Path, fresh_nats: NatsServer,
                                                       index_corpus: IndexCorpus,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    settings = RetrievalSettings(var_dir=tmp_path, qdrant_path=tmp_path / "qdrant", nats_url=fresh_nats.url,
                                 bus_fetch_timeout_s=0.5)

    async def index_once() -> None:
        async with running_retrieval(settings) as _, watching(fresh_nats.url) as (bus, seen):
            for message in index_corpus.batches("rel-cli", batch_size=16):
                await bus.publish(message)
            await seen.wait(lambda m: m.payload.release_id == "rel-cli")

    asyncio.run(index_once())  # the service ran once, then stopped
    monkeypatch.setenv("QDRANT_PATH", str(tmp_path / "qdrant"))
    result = CliRunner().invoke(index_cli, ["rebuild", "--var-dir", str(tmp_path), "--nats-url", fresh_nats.url])
    assert result.exit_code == 0, result.output
    assert "no retrieval service is running" in result.output
    assert "live: release rel-cli in duocthu__rel-cli__r" in result.output

    async def check() -> None:
        index = open_index(settings)  # the adapter the service serves from (Edge unless QDRANT_URL)
        try:
            live = await index.live_collection()
            assert live is not None and live.startswith("duocthu__rel-cli__r")
            assert await index.count(live) == len(index_corpus.chunks)
        finally:
            await index.close()

    asyncio.run(check())
    status = CliRunner().invoke(index_cli, ["status", "--var-dir", str(tmp_path), "--nats-url", fresh_nats.url])
    assert status.exit_code == 0, status.output
    assert '"release_id": "rel-cli"' in status.output


@pytest.mark.parametrize("adapter", [EdgeIndex, QdrantIndex], ids=["edge", "local"])
async def test_the_local_directory_is_never_opened_twice(index_settings: RetrievalSettings,
                                                         adapter: type[EdgeIndex] | type[QdrantIndex]) -> None:
    index = adapter.open(index_settings)
    try:
        with pytest.raises(IndexUnavailable, match="in use by another process"):
            adapter.open(index_settings)
    finally:
        await index.close()
