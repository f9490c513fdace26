"""Start-up time of ``duocthu ask``: median wall and CPU time over repeated runs.

Each run asks a gateway that is not there (a closed local port), so what is
measured is the command's own start-up: interpreter, imports, argument
parsing, one refused connection, exit.  CPU time (user + system of the
child) is printed next to wall time because the machines here are shared:
under load the wall clock waits for a core, the CPU time does not.

    duocthu bench cli-startup --runs 30
"""

from __future__ import annotations

import os
import resource
import socket
import statistics
import subprocess
import sys
import time


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # nothing listens on it once the socket is closed


def run_startup(*, runs: int, command: str) -> None:
    """Run ``command ask`` against a closed port ``runs`` times; print the wall and CPU medians."""
    url = f"http://127.0.0.1:{closed_port()}"
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([command, "ask", "Chống chỉ định của metformin?", "--url", url],
                              capture_output=True, check=False)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if done.returncode != 2:
            sys.exit(f"expected exit code 2 (gateway unreachable), got {done.returncode}: {done.stderr[-300:]!r}")
    load = os.getloadavg()[0]
    print(f"duocthu ask, {runs} runs (load average {load:.1f} on {os.cpu_count()} cores)")
    print(f"  wall: median {statistics.median(walls):.3f} s, min {min(walls):.3f} s, max {max(walls):.3f} s")
    print(f"  cpu:  median {statistics.median(cpus):.3f} s, min {min(cpus):.3f} s, max {max(cpus):.3f} s")
