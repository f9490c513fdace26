"""`duocthu audit` against a real stack's JetStream audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from duocthu_cli.stack.supervisor import Stack
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e


def _duocthu(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NATS_URL=stack.nats_url or "", VAR_DIR=str(stack.var_dir))  # ops identity from var
    return subprocess.run([sys.executable, "-m", "duocthu_cli", *args], check=False, env=env, capture_output=True, text=True,
                          timeout=120)


def _ask(stack: Stack, query: str) -> dict[str, object]:
    response = httpx.post(f"{stack.url}/v1/rag/query", json={"query": query}, timeout=60)
    assert response.status_code == 200
    body: dict[str, object] = response.json()
    return body


@pytest.fixture
def recorded(stack_factory: StackFactory) -> tuple[Stack, list[dict[str, object]]]:
    # the state directory is called "var", as `make run` makes it: `duocthu audit` finds the stack there
    stack = stack_factory(var_name="var")
    answers = [_ask(stack, q) for q in ("Chống chỉ định của metformin?", "Liều paracetamol cho người lớn?",
                                        "Giá thuốc Panadol bao nhiêu tiền?")]
    return stack, answers


def test_show_prints_the_chain_in_causal_order(recorded: tuple[Stack, list[dict[str, object]]]) -> None:
    stack, answers = recorded
    turn = str(answers[0]["trace_id"])
    result = _duocthu(stack, "audit", "show", turn, "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    schemas = [m["schema"] for m in document["messages"]]
    assert schemas[0] == "rag.turn.requested/1"
    assert schemas[-1] == "rag.turn.verified/1"  # answered: the verifier's sealed turn end
    assert document["summary"]["decision"] == answers[0]["decision"]
    assert document["summary"]["reason"] == answers[0]["reason"]
    text = _duocthu(stack, "audit", "show", turn)
    assert text.returncode == 0 and f"turn {turn}" in text.stdout


def _duocthu_without_environment(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command as an operator types it right after `make run`: no NATS_URL, no VAR_DIR, in the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "VAR_DIR")}
    return subprocess.run([sys.executable, "-m", "duocthu_cli", *args], check=False, env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_show_finds_the_running_stack_without_environment(recorded: tuple[Stack, list[dict[str, object]]],
                                                          tmp_path: Path) -> None:
    stack, answers = recorded
    # another NATS on the old default port must not be what the command reads
    assert stack.nats_url is not None and not stack.nats_url.endswith(":4222")
    turn = str(answers[0]["trace_id"])
    result = _duocthu_without_environment(stack.var_dir.parent, "audit", "show", turn, "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["summary"]["turn_id"] == turn
    assert document["summary"]["decision"] == answers[0]["decision"]
    # from anywhere else there is no stack to find: a clear error, not a connection to some default port
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lost = _duocthu_without_environment(elsewhere, "audit", "show", turn)
    assert lost.returncode == 2
    assert "no running stack found" in lost.stderr
    # and the explicit --var-dir reaches it from there
    found = _duocthu_without_environment(elsewhere, "audit", "show", turn, "--var-dir", str(stack.var_dir))
    assert found.returncode == 0, found.stderr
    assert f"turn {turn}" in found.stdout


def test_show_unknown_turn_fails_clearly(recorded: tuple[Stack, list[dict[str, object]]]) -> None:
    stack, _ = recorded
    result = _duocthu(stack, "audit", "show", "0" * 32)
    assert result.returncode == 1
    assert "no messages for turn" in result.stderr


def test_export_writes_every_message_verbatim(recorded: tuple[Stack, list[dict[str, object]]], tmp_path: Path) -> None:
    stack, answers = recorded
    out = tmp_path / "turn.jsonl"
    result = _duocthu(stack, "audit", "export", str(answers[1]["trace_id"]), "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["message"]["payload"]["query"] == "Liều paracetamol cho người lớn?"
    assert {line["message"]["turn_id"] for line in lines} == {answers[1]["trace_id"]}


def test_replay_of_unchanged_services_reports_no_difference(recorded: tuple[Stack, list[dict[str, object]]],
                                                             tmp_path: Path) -> None:
    stack, answers = recorded
    report = tmp_path / "replay.json"
    result = _duocthu(stack, "audit", "replay", "--since", "1h", "--timeout", "60", "--report", str(report))
    assert result.returncode == 0, result.stdout + result.stderr
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["turns"] == len(answers)
    assert document["changed"] == 0


def test_replay_shows_a_decision_changed_by_a_code_or_config_change(
        recorded: tuple[Stack, list[dict[str, object]]], tmp_path: Path) -> None:
    stack, answers = recorded
    assert answers[0]["decision"] == "answerable"
    # the generation stage now runs a model provider that cannot be reached: answers become abstentions
    generation = stack.find("generation")
    generation.stop()
    generation.env = {**generation.env, "ANSWER_PROVIDER": "openai",
                      "ANSWER_OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ANSWER_MAX_ATTEMPTS": "1"}
    generation.start()
    report = tmp_path / "replay.json"
    result = _duocthu(stack, "audit", "replay", "--since", "1h", "--timeout", "60", "--report", str(report))
    assert result.returncode == 1, result.stdout + result.stderr
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["changed"] >= 1
    assert "provider_unavailable" in result.stdout and str(answers[0]["trace_id"]) in result.stdout
