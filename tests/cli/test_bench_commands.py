"""The benchmarks are ``duocthu bench`` subcommands: each one is there, and the cheap ones really run.

Figures are never asserted (they live in docs/benchmarks.md): a run must finish and print its measures.
The ones that need a running stack, a sample index or minutes of CPU are run by hand (docs/benchmarks.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duocthu_cli.main import app

COMMANDS = ("query", "load", "ingest", "embeddings", "index", "store-write", "verifier-cpu", "stack-cpu",
            "bus-floor", "hop", "faults", "cli-startup")
ROOT = Path(__file__).resolve().parents[2]


def _bench(*args: str) -> str:
    result = CliRunner().invoke(app, ["bench", *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("command", COMMANDS)
def test_every_benchmark_is_a_subcommand(command: str) -> None:
    assert f"bench {command} [OPTIONS]" in _bench(command, "--help")


def test_no_benchmark_is_left_in_scripts() -> None:
    """One script stays on purpose (it times a fresh clone's install); docs/architecture.md says why."""
    assert sorted(p.name for p in (ROOT / "scripts").glob("bench_*.py")) == ["bench_first_run.py"]
    assert "scripts/bench_first_run.py" in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_store_write_times_real_records() -> None:
    assert "median of runs" in _bench("store-write", "--writes", "3", "--repeats", "1")


def test_index_builds_and_queries_a_synthetic_release() -> None:
    output = _bench("index", "--drugs", "3", "--queries", "2", "--repeats", "1")
    assert "index build" in output and "hybrid RRF" in output and "phrase match" in output


def test_ingest_reports_steps_gates_and_parse_quality(tmp_path: Path) -> None:
    output = _bench("ingest", "--monographs", "2", "--repeats", "1", "--work", str(tmp_path), "--report")
    assert "gates: all passed" in output
    assert "duocthu sections exact:" in output  # against the synthetic book's own ground truth


def test_an_unknown_fault_target_is_named() -> None:
    result = CliRunner().invoke(app, ["bench", "faults", "--targets", "gateway,router"])
    assert result.exit_code != 0 and "router" in result.output


def test_cli_startup_times_the_installed_command() -> None:
    done = subprocess.run([sys.executable, "-m", "duocthu_cli", "bench", "cli-startup", "--runs", "1"],
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "wall: median" in done.stdout and "cpu:  median" in done.stdout
