"""The verifier's term statistics follow the live release on a real NATS, and an audit re-runs the term check.

The statistics are a projection of the ``CORPUS`` stream: chunks counted
from ``corpus.v1.batch.embedded``, made current by the release's
``corpus.v1.release.completed`` (live, with as many chunks as were counted).
A replica started after the release rebuilds the same statistics.  The
term check's records hold what it consulted, and ``recorded_statistics``
rebuilds exactly that for ``duocthu audit reverify``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from duocthu_contracts.answer import AnswerPlan, Claim, Draft
from duocthu_contracts.corpus import EmbeddedChunk, EmbeddingModel, ReleaseManifest, SparseVector
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.messages import (
    AnswerDraftedPayload,
    CorpusBatchEmbedded,
    CorpusBatchEmbeddedPayload,
    CorpusReleaseCompleted,
    CorpusReleaseResultPayload,
)
from duocthu_runtime import Bus, RuntimeSettings, new_message
from duocthu_runtime.devstack import NatsServer
from duocthu_verifier import live_terms, recorded_statistics, run_deterministic_checks, subject_of, term_context
from tests.fixtures.index import chunk_records, index_monographs
from tests.fixtures.verifier import make_evidence

MODEL = EmbeddingModel(provider="test", model_id="none", dimensions=2, input_kind="passage")


def release(release_id: str, drug_ids: Sequence[str], *, announce: int | None = None) -> list[object]:
    chunks = [c for c in chunk_records(index_monographs()) if c.drug_id in drug_ids]
    embedded = [EmbeddedChunk(chunk=c, dense=[0.1, 0.2], sparse=SparseVector()) for c in chunks]
    batch = CorpusBatchEmbeddedPayload(
        release_id=release_id, job_id="j", part_index=0, part_count=1, batch_index=0, batch_count=1,
        part_chunk_count=len(embedded), corpus_sha256="x", source_sha256="y", model=MODEL, chunks=embedded)
    manifest = ReleaseManifest(release_id=release_id, corpus_sha256="x", chunk_count=announce or len(embedded),
                               model_id="none", dimensions=2, input_kind="passage", provider="test",
                               distance="Cosine")
    done = CorpusReleaseResultPayload(release_id=release_id, status="live", manifest=manifest)
    return [new_message(CorpusBatchEmbedded, batch), new_message(CorpusReleaseCompleted, done)]


async def until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    for _ in range(int(timeout_s / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the statistics did not follow the stream in time")


async def test_statistics_follow_the_live_release(fresh_nats: NatsServer) -> None:
    settings = RuntimeSettings(nats_url=fresh_nats.url)
    publisher = Bus(settings, client_name="ingest-and-indexer")
    await publisher.connect()
    drugs = sorted({c.drug_id for c in chunk_records(index_monographs())})
    for message in release("rel-1", drugs[:1]):
        await publisher.publish(message)  # type: ignore[arg-type]

    replica = Bus(settings, client_name="verifier-replica")
    await replica.connect()
    live = live_terms()
    await live.watch(replica)
    await until(lambda: live.current is not None)
    assert live.current is not None and live.current.release_id == "rel-1"
    first = live.current

    for message in release("rel-2", drugs, announce=10_000):  # announces chunks it never sent: not made live
        await publisher.publish(message)  # type: ignore[arg-type]
    for message in release("rel-3", drugs):
        await publisher.publish(message)  # type: ignore[arg-type]
    await until(lambda: live.current is not None and live.current.release_id == "rel-3")
    assert live.current is not None and live.current.documents > first.documents
    assert (await live.ready())[0]

    late = Bus(settings, client_name="late-replica")
    await late.connect()
    rebuilt = live_terms()
    await rebuilt.watch(late)
    await until(lambda: rebuilt.current is not None and rebuilt.current.release_id == "rel-3")
    assert rebuilt.current is not None and rebuilt.current.sha256 == live.current.sha256
    for bus in (publisher, replica, late):
        await bus.stop()


IND = make_evidence("metformin", "chi_dinh")


def payload(text: str) -> AnswerDraftedPayload:
    return AnswerDraftedPayload(
        query="q", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE), route=Route.A_SECTION, evidence=[IND],
        plan=AnswerPlan(), draft=Draft(claims=[Claim(text=text, citations=[1])], generated=True))


def test_the_term_check_reruns_from_its_record_alone() -> None:
    from tests.fixtures.verifier import sample_terms

    draft = payload("Metformin được dùng để điều trị ung thư ở người lớn.")
    records = run_deterministic_checks(subject_of(draft, sample_terms()))
    term = next(r for r in records if r.check == "specific_terms")
    assert term.reason is Reason.UNSUPPORTED_TERM and term.term_basis is not None
    assert term.term_basis.release_id == "sample" and term.term_basis.statistics_sha256
    assert "ung" in term.term_basis.document_frequency and term.term_basis.background.startswith("wordfreq")

    rerun = run_deterministic_checks(subject_of(draft, term_context(recorded_statistics(records))))
    assert [(r.check, r.outcome, r.reason, r.inputs_sha256) for r in rerun] == \
        [(r.check, r.outcome, r.reason, r.inputs_sha256) for r in records]

    tampered = payload("Metformin được dùng để điều trị ung thư và sốt rét ở người lớn.")
    again = run_deterministic_checks(subject_of(tampered, term_context(recorded_statistics(records))))
    changed = next(r for r in again if r.check == "specific_terms")
    assert changed.inputs_sha256 != term.inputs_sha256
