"""The worker on a real NATS: a job becomes size-bounded batches and a result; failures publish nothing else.

The last test runs the real retrieval indexer next to it, so the batches are
proven to be what the index turns into a live release.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy

from duocthu_contracts import subjects
from duocthu_contracts.messages import (
    CorpusBatchEmbedded,
    IngestJobProgressPayload,
    IngestJobRequestedPayload,
    IngestJobResult,
)
from duocthu_ingest import build_spec, build_worker, page_count, part_jobs, submit, submit_all
from duocthu_ingest.application.progress_tally import ProgressTally
from duocthu_ingest.settings import IngestSettings
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_runtime import RuntimeSettings, decode
from duocthu_runtime.devstack import NatsServer
from duocthu_runtime.service import build_app, build_runtime
from tests.index.harness import running_retrieval
from tests.ingest.minibook import PUA_CHAR, Book, build_book


class Stream:
    """Every corpus batch and job result stored in the CORPUS stream."""

    def __init__(self) -> None:
        self.batches: list[CorpusBatchEmbedded] = []
        self.results: list[IngestJobResult] = []
        self.raw_sizes: list[int] = []

    async def on_msg(self, msg: Msg) -> None:
        if msg.subject == CorpusBatchEmbedded.SUBJECT:
            self.raw_sizes.append(len(msg.data))
            self.batches.append(decode(msg.data, CorpusBatchEmbedded))
        elif msg.subject == IngestJobResult.SUBJECT:
            self.results.append(decode(msg.data, IngestJobResult))

    async def result(self, job_id: str, timeout_s: float = 120.0) -> IngestJobResult:
        async def find() -> IngestJobResult:
            while True:
                for r in self.results:
                    if r.payload.job_id == job_id:
                        return r
                await asyncio.sleep(0.05)

        return await asyncio.wait_for(find(), timeout_s)


@contextlib.asynccontextmanager
async def worker_running(nats: NatsServer, embedder, tmp_path: Path, **overrides) -> AsyncIterator[Stream]:  # type: ignore[no-untyped-def]
    settings = IngestSettings(nats_url=nats.url, var_dir=tmp_path, embedding_cache=False, **overrides)
    runtime = build_runtime(build_spec(settings, build_worker(settings, embedder=embedder)))
    stream = Stream()
    async with runtime.lifespan(build_app(runtime)):
        client = Client()
        await client.connect(nats.url)
        sub = await client.jetstream().subscribe("corpus.>", stream=subjects.CORPUS_STREAM, ordered_consumer=True,
                                                 deliver_policy=DeliverPolicy.ALL, cb=stream.on_msg)
        try:
            yield stream
        finally:
            await sub.unsubscribe()
            await client.close()


async def publish_job(nats: NatsServer, payload: IngestJobRequestedPayload) -> None:
    from duocthu_contracts.messages import IngestJobRequested
    from duocthu_runtime import Bus, new_message

    bus = Bus(RuntimeSettings(nats_url=nats.url), client_name="test-ingest")
    await bus.connect()
    await bus.publish(new_message(IngestJobRequested, payload))
    await bus.stop()


def job(pdf: Path, **extra) -> IngestJobRequestedPayload:  # type: ignore[no-untyped-def]
    return IngestJobRequestedPayload(job_id=uuid.uuid4().hex, release_id=f"rel-{uuid.uuid4().hex[:8]}",
                                     pdf_uri=str(pdf), **extra)


async def test_a_job_becomes_batches_with_the_catalog_and_an_embedded_result(
        fresh_nats: NatsServer, index_embedder, mini_book: Book, mini_ingest, tmp_path: Path):
    async with worker_running(fresh_nats, index_embedder, tmp_path, ingest_batch_max_bytes=200_000) as stream:
        request = job(mini_book.path)
        await publish_job(fresh_nats, request)
        result = await stream.result(request.job_id)
    body = result.payload
    assert body.status == "embedded", body.error
    assert body.gates and all(v == 0 for v in body.gates.values())
    batches = sorted(stream.batches, key=lambda b: b.payload.batch_index)
    assert len(batches) == body.batch_count > 1  # cut by size
    assert max(stream.raw_sizes) <= 200_000
    chunks = [c for b in batches for c in b.payload.chunks]
    assert [c.chunk for c in chunks] == mini_ingest.chunks
    assert all(len(c.dense) == b.payload.model.dimensions for b in batches for c in b.payload.chunks)
    assert all(c.sparse.indices for c in chunks)
    first = batches[0].payload
    assert first.catalog is not None and [e.drug_id for e in first.catalog.entries] == \
        [m.drug_id for m in mini_ingest.monographs]
    assert all(b.payload.catalog is None for b in batches[1:])
    assert {b.payload.part_chunk_count for b in batches} == {len(chunks)}
    assert first.corpus_sha256 == mini_ingest.corpus_sha256 and first.model.sparse_model


async def test_failed_gates_and_bad_input_publish_only_a_failed_result(
        fresh_nats: NatsServer, index_embedder, tmp_path: Path):
    pua_book = build_book(tmp_path / "pua.pdf", pua={PUA_CHAR: "ư"})
    not_pdf = tmp_path / "x.pdf"
    not_pdf.write_text("không phải pdf", encoding="utf-8")
    async with worker_running(fresh_nats, index_embedder, tmp_path) as stream:
        gated, bad = job(pua_book.path), job(not_pdf)
        await publish_job(fresh_nats, gated)
        await publish_job(fresh_nats, bad)
        gated_result = await stream.result(gated.job_id)
        bad_result = await stream.result(bad.job_id)
    assert gated_result.payload.status == "failed" and gated_result.payload.gates["pua_chars"] > 0
    assert "pua_chars" in (gated_result.payload.error or "")
    assert gated_result.payload.report["released"] is False
    assert bad_result.payload.status == "failed" and "không phải PDF" in (bad_result.payload.error or "")
    assert stream.batches == []  # nothing for release


async def test_the_cli_goes_through_the_bus_and_the_release_goes_live(
        fresh_nats: NatsServer, index_embedder, mini_book: Book, mini_ingest, tmp_path: Path):
    retrieval = RetrievalSettings(nats_url=fresh_nats.url, var_dir=tmp_path / "r", qdrant_path=tmp_path / "qdrant",
                                  embedding_cache=False, service_name="retrieval")
    async with running_retrieval(retrieval), worker_running(fresh_nats, index_embedder, tmp_path):
        payload = job(mini_book.path.resolve(), page_range=None)
        result, release = await submit(RuntimeSettings(nats_url=fresh_nats.url), payload, 300.0, wait_release=True)
    assert result.payload.status == "embedded"
    assert release is not None and release.payload.status == "live", release.payload.error if release else None
    assert release.payload.manifest is not None
    assert release.payload.manifest.chunk_count == len(mini_ingest.chunks)
    assert release.payload.manifest.source_sha256 == mini_ingest.source_sha256
    assert release.payload.catalog is not None and len(release.payload.catalog.entries) == len(mini_ingest.monographs)


pytestmark = pytest.mark.timeout(600)


async def test_a_book_split_into_page_range_parts_becomes_one_live_release(
        fresh_nats: NatsServer, index_embedder, mini_book: Book, mini_ingest, tmp_path: Path):
    retrieval = RetrievalSettings(nats_url=fresh_nats.url, var_dir=tmp_path / "r", qdrant_path=tmp_path / "qdrant",
                                  embedding_cache=False, service_name="retrieval")
    jobs = part_jobs(mini_book.path, page_count(mini_book.path), "rel-parts", 3, None)
    assert [j.page_range for j in jobs] == [(0, 2), (3, 5), (6, 6)] and {j.part_count for j in jobs} == {3}
    updates: list[IngestJobProgressPayload] = []
    async with running_retrieval(retrieval), worker_running(fresh_nats, index_embedder, tmp_path):
        results, release = await submit_all(RuntimeSettings(nats_url=fresh_nats.url), jobs, 300.0, True, updates.append)
    assert [r.payload.status for r in results] == ["embedded"] * 3, [r.payload.error for r in results]
    # the workers' progress reaches the submitter: every part ends with "done" and all its chunks embedded
    final = {u.part_index: u for u in updates}
    assert {u.job_id for u in updates} <= {j.job_id for j in jobs}
    assert sorted(final) == [0, 1, 2] and {u.stage for u in final.values()} == {"done"}
    assert [(final[i].done, final[i].total) for i in range(len(results))] == [
        (r.payload.chunk_count, r.payload.chunk_count) for r in results]
    tally = ProgressTally(len(jobs))
    view = [tally.add(u) for u in updates][-1]
    assert (view.unit, view.done, view.total) == ("chunks", len(mini_ingest.chunks), len(mini_ingest.chunks))
    assert sum(r.payload.chunk_count for r in results) == len(mini_ingest.chunks)
    assert release is not None and release.payload.status == "live", release.payload.error if release else None
    assert release.payload.manifest is not None and release.payload.manifest.chunk_count == len(mini_ingest.chunks)
    assert release.payload.catalog is not None
    assert sorted(e.drug_id for e in release.payload.catalog.entries) == sorted(m.drug_id for m in mini_ingest.monographs)
