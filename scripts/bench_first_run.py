#!/usr/bin/env python3
"""Time what a new user waits for: a fresh clone to its first answer, and a second `make run` to ready.

    python3 scripts/bench_first_run.py [--runs 3] [--repo .] [--port 18080]

Each run clones the repository's HEAD into a new temporary directory and, there:
``make venv`` (the locked install), then ``make run`` until ``duocthu ask``
gets an answer (first answer, including the install), then Ctrl-C and a
second ``make run`` until it prints "duocthu is ready".  Prints every run
and the medians.  Standard library only; uv's download cache is shared
between runs (as on a developer's machine after the first install of any
project), nothing else is.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

QUESTION = "Chống chỉ định của metformin là gì?"


def _start_run(clone: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    return subprocess.Popen(["make", "run", f"RUN_ARGS=--port {port}"], cwd=clone, stdout=handle,
                            stderr=subprocess.STDOUT, start_new_session=True)


def _stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _answered(clone: Path, port: int) -> bool:
    done = subprocess.run([str(clone / ".venv/bin/duocthu"), "ask", QUESTION, "--json",
                           "--url", f"http://127.0.0.1:{port}", "--timeout", "30"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return False
    return bool(json.loads(done.stdout).get("decision") == "answerable")


def _wait_until(done: Callable[[], bool], process: subprocess.Popen[bytes], timeout_s: float, what: str,
                every_s: float) -> float:
    """Seconds until ``done()``; exits naming ``what`` if ``make run`` dies or the time runs out first."""
    began = time.monotonic()
    while not done():
        if process.poll() is not None or time.monotonic() - began > timeout_s:
            raise SystemExit(what)
        time.sleep(every_s)
    return time.monotonic() - began


def one_run(repo: Path, port: int, timeout_s: float) -> dict[str, float]:
    work = Path(tempfile.mkdtemp(prefix="duocthu-first-run-"))
    clone = work / "duocthu"
    log = work / "make-run.log"
    began = time.monotonic()
    subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
    subprocess.run(["make", "venv"], cwd=clone, check=True, stdout=subprocess.DEVNULL)
    installed = time.monotonic() - began
    process = _start_run(clone, port, log)
    try:
        first_answer = installed + _wait_until(lambda: _answered(clone, port), process, timeout_s,
                                               f"no answer; see {log}", every_s=1.0)
    finally:
        _stop(process)
    offset = log.stat().st_size
    process = _start_run(clone, port, log)
    try:
        second_ready = _wait_until(lambda: b"duocthu is ready" in log.read_bytes()[offset:], process, timeout_s,
                                   f"second start not ready; see {log}", every_s=0.2)
    finally:
        _stop(process)
    return {"install_s": installed, "first_answer_s": first_answer, "second_ready_s": second_ready}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    runs = []
    for number in range(args.runs):
        result = one_run(args.repo, args.port, args.timeout)
        runs.append(result)
        print(f"run {number + 1}: " + ", ".join(f"{k} {v:.1f}" for k, v in result.items()), flush=True)
    print("median: " + ", ".join(f"{k} {statistics.median(r[k] for r in runs):.1f}" for k in runs[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
