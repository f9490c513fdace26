"""``duocthu up --corpus synthetic:N`` builds the synthetic book, ingests and indexes it, and serves it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from duocthu_cli.stack.corpus_source import CorpusSource, parse_corpus_source
from duocthu_cli.stack.sample_corpus import SampleCorpusError
from duocthu_contracts.http import RagQueryResponse
from duocthu_runtime.devstack import free_port
from tests.fixtures.stack import TEST_ENV

pytestmark = pytest.mark.e2e


def test_corpus_sources_parse_and_bad_ones_are_refused() -> None:
    assert parse_corpus_source("sample") == CorpusSource("sample")
    assert parse_corpus_source("synthetic:684") == CorpusSource("synthetic", 684)
    for bad in ("synthetic", "synthetic:0", "synthetic:-3", "synthetic:x", "real", ""):
        with pytest.raises(SampleCorpusError, match="synthetic:N"):
            parse_corpus_source(bad)


def _wait_ready(process: subprocess.Popen[str], deadline_s: float) -> list[str]:
    said: list[str] = []
    deadline = time.monotonic() + deadline_s
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        said.append(line.rstrip())
        if "duocthu is ready" in line:
            return said
    raise AssertionError("duocthu up did not become ready:\n" + "\n".join(said[-20:]))


def test_up_serves_a_question_from_the_synthetic_book(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, **TEST_ENV}
    env.pop("NATS_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "duocthu_cli", "up", "--corpus", "synthetic:3", "--port", str(port),
         "--var-dir", str(tmp_path / "var")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        said = _wait_ready(process, 900)
        assert any("synthetic3 corpus live (release synthetic3-" in line for line in said), said
        assert (tmp_path / "var" / "synthetic-3.pdf").is_file()
        response = httpx.post(f"http://127.0.0.1:{port}/v1/rag/query",
                              json={"query": "Chống chỉ định của morbenil?"}, timeout=120)
        assert response.status_code == 200, response.text
        body = RagQueryResponse.model_validate(response.json())
        assert body.resolved_drug_ids == ["morbenil"]
        assert body.citations, body.model_dump_json(indent=1)
        assert {c.drug_id for c in body.citations} == {"morbenil"}
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
