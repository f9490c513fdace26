"""`duocthu ask` output: the disclaimer and the trace id on lines of their own; `--json` is the response as sent.

The gateway is a test double at the HTTP boundary; the command runs as a user runs it, a process whose
stdout and stderr go to one pipe (what a terminal log or `2>&1` shows).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from duocthu_contracts.http import DISCLAIMER

RESPONSE = {
    "trace_id": "4f1c2b9a0d3e4c5f8a7b6c5d4e3f2a1b",
    "correlation_id": "c-1",
    "decision": "answerable",
    "reason": "ok",
    "answer": "Người lớn: 500 mg mỗi 4–6 giờ [1].",
    "claims": [{"text": "Người lớn: 500 mg mỗi 4–6 giờ.", "citations": [1]}],
    "citations": [{"index": 1, "chunk_id": "paracetamol:lieu:0", "drug_id": "paracetamol",
                   "drug_name": "Paracetamol", "section_key": "lieu_luong_va_cach_dung",
                   "section_title": "Liều lượng và cách dùng", "printed_page_range": [12, 13],
                   "source_page_range": [14, 15], "text": "Người lớn: 500 mg mỗi 4–6 giờ.", "attachments": []}],
    "quick_replies": [],
    "resolved_drug_ids": ["paracetamol"],
    "generated": False,
    "disclaimer": DISCLAIMER,
}


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own XDG config directory: the client token is never written to the real home."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config"


def _ask(httpserver: HTTPServer, *args: str) -> subprocess.CompletedProcess[str]:
    httpserver.expect_request("/v1/rag/query", method="POST").respond_with_json(RESPONSE)
    return subprocess.run([sys.executable, "-m", "duocthu_cli", "ask", "Liều paracetamol cho người lớn?",
                           "--url", httpserver.url_for("").rstrip("/"), *args],
                          env=dict(os.environ), check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)


def test_disclaimer_and_trace_id_are_separate_lines_after_the_answer(httpserver: HTTPServer) -> None:
    result = _ask(httpserver)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    assert lines[-2] == f"Lưu ý: {DISCLAIMER}"
    assert lines[-1] == f"Mã truy vết (trace_id): {RESPONSE['trace_id']}"
    # the trace id appears nowhere else (not inside the answer, not glued to the disclaimer)
    assert sum(str(RESPONSE["trace_id"]) in line for line in lines) == 1
    assert lines.index("Người lớn: 500 mg mỗi 4–6 giờ [1].") < len(lines) - 2
    assert "[1] Paracetamol — Liều lượng và cách dùng — trang 12–13" in lines


def test_json_is_the_gateway_response_unchanged(httpserver: HTTPServer) -> None:
    result = _ask(httpserver, "--json")
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout) == RESPONSE


def test_the_client_token_is_created_once_kept_private_and_sent(httpserver: HTTPServer, config_home: Path) -> None:
    assert _ask(httpserver).returncode == 0
    assert _ask(httpserver).returncode == 0
    path = config_home / "duocthu" / "client-token"
    token = path.read_text().strip()
    assert len(token) >= 32 and path.stat().st_mode & 0o077 == 0
    sent = [request.headers.get("X-Client-Token") for request, _ in httpserver.log]
    assert sent == [token, token]
