"""Out of the box: the sample formulary PDF is built, ingested and live before ``duocthu up`` says ready.

On every start the sample PDF is (re)built only when the corpus package
(monograph YAML, typesetter) changed since the last build, and an ingest job
is published only when the live release was not built from exactly this PDF
with this replica's vector space; otherwise the start skips straight to
serving.  The ingest worker turns the job into corpus batches, the retrieval
indexer turns those into the live release, and this module waits for the
``corpus.v1.release.completed`` (or the job's failure) and reports it.
"""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duocthu_corpus
from duocthu_contracts.messages import (
    CorpusReleaseCompleted,
    IngestJobRequested,
    IngestJobRequestedPayload,
    IngestJobResult,
)
from duocthu_retrieval import OperationFailed, next_completion, replicas, wait_for_status
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.bus.envelope import new_message
from duocthu_runtime.hashing import file_sha256
from duocthu_runtime.settings import RuntimeSettings

SAMPLE_PDF = "sample-formulary.pdf"

Echo = Callable[[str], None]


class SampleCorpusError(RuntimeError):
    """The sample corpus could not be built or indexed; the message says which step failed."""


@dataclass(frozen=True)
class SamplePdf:
    path: Path
    sha256: str
    transcriptions: Path | None


def corpus_fingerprint() -> str:
    """Hash of everything the PDF is made from: the corpus package's code and data."""
    root = Path(duocthu_corpus.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _transcriptions_next_to(pdf: Path) -> Path | None:
    candidates = sorted(p for p in pdf.parent.glob(f"{pdf.stem}*") if "transcription" in p.name and p.is_file())
    return candidates[0] if candidates else None


def prepare_sample_pdf(var_dir: Path, echo: Echo = print) -> SamplePdf:
    """Build ``var/sample-formulary.pdf`` with ``duocthu corpus build-pdf`` unless it is up to date."""
    var_dir.mkdir(parents=True, exist_ok=True)
    pdf = var_dir / SAMPLE_PDF
    stamp = var_dir / f"{SAMPLE_PDF}.source-sha256"
    fingerprint = corpus_fingerprint()
    if not (pdf.is_file() and stamp.is_file() and stamp.read_text(encoding="ascii").strip() == fingerprint):
        echo(f"building the sample formulary PDF: {pdf}")
        command = [sys.executable, "-m", "duocthu_cli", "corpus", "build-pdf", "--out", str(pdf)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not pdf.is_file():
            detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise SampleCorpusError(f"cannot build the sample formulary PDF ({' '.join(command[3:])}): "
                                    + " | ".join(detail))
        stamp.write_text(fingerprint, encoding="ascii")
    return SamplePdf(pdf.resolve(), file_sha256(pdf), _transcriptions_next_to(pdf))


async def ensure_indexed(nats_url: str, sample: SamplePdf, *, timeout_s: float, echo: Echo = print) -> str:
    """Make the sample PDF's release live (unless it already is); returns what was done."""
    bus = Bus(RuntimeSettings(nats_url=nats_url), client_name="duocthu-up")
    await bus.connect()
    try:
        status = await wait_for_status(replicas(bus), timeout_s=min(timeout_s, 180.0))
        manifest = status.manifest
        if status.ready and manifest is not None and manifest.source_sha256 == sample.sha256:
            return f"sample corpus already live (release {manifest.release_id}, {manifest.chunk_count} chunks)"
        release_id = f"sample-{sample.sha256[:12]}-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}"
        job_id = uuid.uuid4().hex
        async with bus.follow(IngestJobResult) as job_results, bus.follow(CorpusReleaseCompleted) as completions:
            payload = IngestJobRequestedPayload(
                job_id=job_id, release_id=release_id, pdf_uri=str(sample.path),
                transcriptions_uri=str(sample.transcriptions) if sample.transcriptions else None,
            )
            await bus.publish(new_message(IngestJobRequested, payload, correlation_id=f"up:{release_id}"))
            echo(f"indexing the sample corpus (release {release_id}) …")
            done = await _first_outcome(completions, job_results, release_id, job_id, timeout_s)
        if done.payload.status != "live" or done.payload.manifest is None:
            raise SampleCorpusError(f"the sample corpus release {release_id} failed: {done.payload.error}")
        return f"sample corpus live (release {release_id}, {done.payload.manifest.chunk_count} chunks)"
    except OperationFailed as exc:
        raise SampleCorpusError(str(exc)) from exc
    finally:
        await bus.stop()


async def _first_outcome(completions: asyncio.Queue[CorpusReleaseCompleted],
                         failures: asyncio.Queue[IngestJobResult], release_id: str, job_id: str,
                         timeout_s: float) -> CorpusReleaseCompleted:
    completion = asyncio.create_task(
        next_completion(completions, lambda m: m.payload.release_id == release_id, timeout_s))

    async def job_failed() -> IngestJobResult:
        while True:
            result = await failures.get()
            if result.payload.job_id == job_id and result.payload.status == "failed":
                return result

    failure = asyncio.create_task(job_failed())
    try:
        finished, _ = await asyncio.wait({completion, failure}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (completion, failure):
            task.cancel()
    if failure in finished:
        error = failure.result().payload.error or "unknown error"
        raise SampleCorpusError(f"the ingest job for the sample corpus failed: {error}")
    return completion.result()


def bootstrap_sample_corpus(var_dir: Path, *, timeout_s: float, echo: Echo = print) -> Callable[[str], None]:
    """The ``duocthu up`` start-up step, given the stack's NATS URL once it runs."""
    sample = prepare_sample_pdf(var_dir, echo)

    def run(nats_url: str) -> None:
        echo(asyncio.run(ensure_indexed(nats_url, sample, timeout_s=timeout_s, echo=echo)))

    return run
