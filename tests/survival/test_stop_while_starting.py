"""Ctrl-C or SIGTERM while ``duocthu up`` is still starting (a first index takes minutes) stops it and every
child at once, instead of being noted and acted on only once the stack is ready."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from duocthu_runtime.devstack import free_port
from tests.fixtures.stack import TEST_ENV

pytestmark = pytest.mark.e2e


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children start in their own sessions, but keep their parent)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_indexing_stops_the_stack(tmp_path: Path, signum: int) -> None:
    env = {**os.environ, **TEST_ENV}
    env.pop("NATS_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "duocthu_cli", "up", "--corpus", "synthetic:12", "--port", str(free_port()),
         "--var-dir", str(tmp_path / "var")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    said: list[str] = []
    try:
        for line in process.stdout:
            said.append(line.rstrip())
            if "indexing the synthetic12 corpus" in line:  # embedding a few hundred chunks: many seconds still to go
                break
        else:
            raise AssertionError("\n".join(said))
        children = _descendants(process.pid)
        assert len(children) >= 7, said  # NATS and six services
        signalled = time.monotonic()
        process.send_signal(signum)
        code = process.wait(timeout=60)
        stopped_s = time.monotonic() - signalled
        said.extend(line.rstrip() for line in process.stdout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 130, said
    assert "stopped while starting" in said and not any("duocthu is ready" in line for line in said), said
    assert not [pid for pid in children if _alive(pid)], "children left running after the stop"
    print(f"stopped {stopped_s:.1f} s after the signal")
