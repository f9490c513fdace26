"""The web page's live release and the admin view of an ingest job's progress, over HTTP against the stack."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from duocthu_corpus.typeset.book import build_book, write_companions
from duocthu_corpus.typeset.synth import synthetic_monographs
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e

ADMIN = {"Authorization": "Bearer s3cret"}


def _jobs(url: str, job_id: str) -> list[dict[str, object]]:
    body = httpx.get(f"{url}/v1/admin/ingest/jobs", headers=ADMIN, timeout=10).json()
    return [j for j in body["jobs"] if j["job_id"] == job_id]


def test_live_release_and_an_ingest_jobs_progress(stack_factory: StackFactory, tmp_path: Path) -> None:
    stack = stack_factory(env={"ADMIN_TOKEN": "s3cret"})
    url = stack.url

    release = httpx.get(f"{url}/v1/rag/release", timeout=10)
    assert release.status_code == 200 and release.headers["cache-control"] == "no-store"
    live = release.json()
    drugs = httpx.get(f"{url}/v1/rag/drugs", timeout=10).json()["drugs"]
    assert live["drug_count"] == len(drugs) > 0 and live["chunk_count"] > 0 and live["release_id"]
    assert live["built_at"] and live["built_at"][:4].isdigit()

    paths = httpx.get(f"{url}/openapi.json", timeout=10).json()["paths"]
    assert "LiveRelease" in str(paths["/v1/rag/release"]["get"]["responses"]["200"])
    assert "IngestJobList" in str(paths["/v1/admin/ingest/jobs"]["get"]["responses"]["200"])
    page = httpx.get(f"{url}/", timeout=10).text
    script = httpx.get(f"{url}/static/app.js", timeout=10).text
    assert 'id="release"' in page and 'id="ingest-jobs"' in page
    assert "/v1/rag/release" in script and "/v1/admin/ingest/jobs" in script

    # the progress view is for admins only, like the trigger
    assert httpx.get(f"{url}/v1/admin/ingest/jobs", timeout=10).status_code == 401
    wrong = httpx.get(f"{url}/v1/admin/ingest/jobs", headers={"Authorization": "Bearer nope"}, timeout=10)
    assert wrong.status_code == 403
    assert httpx.get(f"{url}/v1/admin/ingest/jobs", headers=ADMIN, timeout=10).json() == {"jobs": []}

    book = build_book(tmp_path / "small.pdf", synthetic_monographs(2, seed=1), front_matter=False)
    write_companions(book)
    accepted = httpx.post(f"{url}/v1/admin/ingest", json={"pdf_uri": str(book.path), "release_id": "small-book"},
                          headers=ADMIN, timeout=10).json()
    job_id = accepted["job_id"]
    seen: list[dict[str, object]] = []
    for _ in range(600):  # the worker ends every job with a done/failed update; this bounds a broken stack
        seen = _jobs(url, job_id)
        if seen and seen[0]["stage"] in ("done", "failed"):
            break
        time.sleep(0.5)
    assert seen, "no progress arrived for the job"
    final = seen[0]
    assert final["release_id"] == "small-book" and final["part_index"] == 0
    assert final["stage"] == "done", final
    assert isinstance(final["total"], int) and final["done"] == final["total"] > 0  # every chunk embedded


    # `duocthu ingest` through the same stack draws its bar from the same events (pages, then chunks)
    env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "VAR_DIR")} | {"TTY_COMPATIBLE": "1"}
    done = subprocess.run([sys.executable, "-m", "duocthu_cli", "ingest", str(book.path), "--mode", "bus",
                           "--var-dir", str(stack.var_dir), "--parts", "2", "--release-id", "small-book-cli",
                           "--report", str(tmp_path / "report.json")],
                          env=env, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = next(line for line in done.stdout.splitlines() if "ingest through the stack:" in line)
    assert summary.split("ingest through the stack: ", 1)[1].startswith(f"{final['total']}/{final['total']} chunks")
