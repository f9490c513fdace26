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
from duocthu_contracts.messages import IngestJobRequestedPayload
from duocthu_ingest import submit
from duocthu_retrieval import OperationFailed, replicas, wait_for_status
from duocthu_runtime import Bus, JobProgress, RuntimeSettings, file_sha256
from duocthu_runtime.devstack import ops_settings

SAMPLE_PDF = "sample-formulary.pdf"

Echo = Callable[[str], None]


class SampleCorpusError(RuntimeError):
    """The sample corpus could not be built or indexed; the message says which step failed."""


@dataclass(frozen=True)
class SamplePdf:
    path: Path
    sha256: str
    transcriptions: Path | None
    name: str = "sample"  # which corpus source (corpus_source.py): names the release and the messages


def corpus_fingerprint() -> str:
    """Hash of everything the PDF is made from: the corpus package's code and data."""
    root = Path(duocthu_corpus.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def transcriptions_next_to(pdf: Path) -> Path | None:
    candidates = sorted(p for p in pdf.parent.glob(f"{pdf.stem}*") if "transcription" in p.name and p.is_file())
    return candidates[0] if candidates else None


def build_pdf_if_stale(pdf: Path, what: str, corpus_args: list[str], echo: Echo = print) -> None:
    """Run ``duocthu corpus <corpus_args> --out pdf`` unless ``pdf`` was built from this corpus package.

    A stamp beside the PDF holds the corpus fingerprint it was built from, so a start rebuilds only after
    the monographs or the typesetter changed.
    """
    pdf.parent.mkdir(parents=True, exist_ok=True)
    stamp = pdf.parent / f"{pdf.name}.source-sha256"
    fingerprint = corpus_fingerprint()
    if pdf.is_file() and stamp.is_file() and stamp.read_text(encoding="ascii").strip() == fingerprint:
        return
    echo(f"building {what}: {pdf}")
    command = [sys.executable, "-m", "duocthu_cli", "corpus", *corpus_args, "--out", str(pdf)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not pdf.is_file():
        detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise SampleCorpusError(f"cannot build {what} ({' '.join(command[3:])}): " + " | ".join(detail))
    stamp.write_text(fingerprint, encoding="ascii")


def prepare_sample_pdf(var_dir: Path, echo: Echo = print) -> SamplePdf:
    """Build ``var/sample-formulary.pdf`` with ``duocthu corpus build-pdf`` unless it is up to date."""
    pdf = var_dir / SAMPLE_PDF
    build_pdf_if_stale(pdf, "the sample formulary PDF", ["build-pdf"], echo)
    return SamplePdf(pdf.resolve(), file_sha256(pdf), transcriptions_next_to(pdf))


async def ensure_indexed(settings: RuntimeSettings, sample: SamplePdf, *, timeout_s: float, echo: Echo = print) -> str:
    """Make the sample PDF's release live (unless it already is); returns what was done."""
    bus = Bus(settings, client_name="duocthu-up")
    await bus.connect()
    try:
        status = await wait_for_status(replicas(bus), timeout_s=min(timeout_s, 180.0))
    except OperationFailed as exc:
        raise SampleCorpusError(str(exc)) from exc
    finally:
        await bus.stop()
    manifest = status.manifest
    if status.ready and manifest is not None and manifest.source_sha256 == sample.sha256:
        return f"{sample.name} corpus already live (release {manifest.release_id}, {manifest.chunk_count} chunks)"
    release_id = f"{sample.name}-{sample.sha256[:12]}-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}"
    job = IngestJobRequestedPayload(
        job_id=uuid.uuid4().hex, release_id=release_id, pdf_uri=str(sample.path),
        transcriptions_uri=str(sample.transcriptions) if sample.transcriptions else None,
    )
    echo(f"indexing the {sample.name} corpus (release {release_id}) …")
    try:
        # parse, embed (shipped vectors are cache hits) and index run in the stack: the bar shows elapsed time,
        # the count is the release's chunks once it is live
        with JobProgress(f"indexing the {sample.name} corpus", unit="chunks") as progress:
            result, release = await submit(settings, job, timeout_s, wait_release=True,
                                           correlation_id=f"up:{release_id}")
            if release is not None and release.payload.manifest is not None:
                count = release.payload.manifest.chunk_count
                progress.update(count, count)
    except TimeoutError as exc:
        raise SampleCorpusError(f"the {sample.name} corpus release {release_id} was not live within {timeout_s:.0f}s") \
            from exc
    if result.payload.status != "embedded":
        raise SampleCorpusError(f"the ingest job for the {sample.name} corpus failed: {result.payload.error or 'unknown error'}")
    if release is None or release.payload.status != "live" or release.payload.manifest is None:
        error = release.payload.error if release is not None else "no release announced"
        raise SampleCorpusError(f"the {sample.name} corpus release {release_id} failed: {error}")
    return f"{sample.name} corpus live (release {release_id}, {release.payload.manifest.chunk_count} chunks)"


def bootstrap_sample_corpus(var_dir: Path, *, timeout_s: float, echo: Echo = print,
                            pdf: SamplePdf | None = None) -> Callable[[str], None]:
    """The ``duocthu up`` start-up step, given the stack's NATS URL once it runs (``pdf``: another corpus source)."""
    sample = pdf if pdf is not None else prepare_sample_pdf(var_dir, echo)

    def run(nats_url: str) -> None:
        settings = ops_settings(nats_url, var_dir)  # the stack's NATS admits the operator identity only
        echo(asyncio.run(ensure_indexed(settings, sample, timeout_s=timeout_s, echo=echo)))

    return run
