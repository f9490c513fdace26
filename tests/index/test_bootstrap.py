"""``duocthu up`` out of the box: skip when the live release is this PDF's, else ingest and wait."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from duocthu_cli.stack.sample_corpus import (
    SAMPLE_PDF,
    SampleCorpusError,
    SamplePdf,
    corpus_fingerprint,
    ensure_indexed,
    prepare_sample_pdf,
)
from duocthu_runtime import file_sha256
from tests.fixtures.index import IndexCorpus
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e


def test_an_up_to_date_pdf_is_not_rebuilt(tmp_path: Path) -> None:
    pdf = tmp_path / SAMPLE_PDF
    pdf.write_bytes(b"%PDF-1.7 built earlier")
    (tmp_path / f"{SAMPLE_PDF}.source-sha256").write_text(corpus_fingerprint(), encoding="ascii")
    (tmp_path / "sample-formulary.transcriptions.json").write_text("{}", encoding="utf-8")
    sample = prepare_sample_pdf(tmp_path, echo=lambda _: pytest.fail("must not rebuild"))
    assert sample.path == pdf.resolve()
    assert sample.sha256 == file_sha256(pdf)
    assert sample.transcriptions is not None and sample.transcriptions.name == "sample-formulary.transcriptions.json"


def test_fingerprint_is_stable() -> None:
    assert corpus_fingerprint() == corpus_fingerprint()


def test_start_up_skips_when_the_live_release_is_this_pdf_and_ingests_otherwise(
        stack_factory: StackFactory, index_corpus: IndexCorpus, tmp_path: Path) -> None:
    stack = stack_factory()  # seeded with index_corpus, whose source hash plays the sample PDF's
    ops = stack.ops_settings()
    same = SamplePdf(tmp_path / "same.pdf", index_corpus.source_sha256, None)
    said = asyncio.run(ensure_indexed(ops, same, timeout_s=60))
    assert said.startswith("sample corpus already live (release rel-e2e")
    # A changed PDF is ingested: the job goes to the ingest worker, and a job that fails is reported, not hidden.
    changed = SamplePdf(tmp_path / "missing.pdf", "0" * 64, None)
    with pytest.raises(SampleCorpusError, match="ingest job for the sample corpus failed"):
        asyncio.run(ensure_indexed(ops, changed, timeout_s=120))
