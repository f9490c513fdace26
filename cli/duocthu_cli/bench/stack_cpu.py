"""Where a running stack's CPU goes per turn: CPU ms per answered turn of each process during ``bench load``.

    duocthu bench stack-cpu --pid PID_OF_DUOCTHU_UP --url http://127.0.0.1:18650 \
        --var-dir /tmp/vcpu-var [--concurrency 8] [--requests 300] [--repeats 1]

Why: throughput at concurrency 8 on 2 cores is bounded by the CPU a turn costs in *every* process — the four
stages, the gateway, nats-server, and the load client itself — not by the handlers alone.  This reads
``utime + stime`` of the stack's process tree (``/proc/<pid>/stat``) before and after one
``duocthu bench load`` run (a child process: its CPU is the client's), and divides each process's CPU by the
turns answered.  Also printed: the load averages and the whole machine's busy share over the run (from
``/proc/stat``), so a figure taken while other work ran is read as such.  Linux only.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def _tree(root: int) -> list[int]:
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(_children(pid))
    return out


def _name(pid: int) -> str:
    args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    text = " ".join(a.decode(errors="replace") for a in args if a)
    module = re.search(r"-m (\S+)", text)
    return module.group(1).removeprefix("duocthu_").removesuffix(".main") if module else Path(text.split()[0]).name


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_S  # utime, stime (fields 14 and 15 of stat)


def _machine() -> tuple[int, int]:
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def _snapshot(root: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for pid in _tree(root):
        try:
            key = f"{_name(pid)}[{pid}]"
            out[key] = _cpu_s(pid)
        except OSError:
            continue
    return out


def run_stack_cpu(*, pid: int, url: str, var_dir: str, concurrency: int, requests: int, repeats: int) -> None:
    """Run ``duocthu bench load`` as a child; print each process's CPU ms per answered turn."""
    duocthu = str(Path(sys.executable).with_name("duocthu"))
    command = [duocthu, "bench", "load", "--url", url, "--var-dir", var_dir,
               "--concurrency", str(concurrency), "--requests", str(requests),
               "--repeats", str(repeats)]
    load_before = os.getloadavg()
    before, busy0 = _snapshot(pid), _machine()
    client0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    client1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    after, busy1 = _snapshot(pid), _machine()
    load_after = os.getloadavg()
    print("\n".join(line for line in done.stdout.splitlines() if line.startswith(("x", "median"))))
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
        raise SystemExit(done.returncode)
    answered = requests * repeats
    rows = {name: after[name] - before[name] for name in after if name in before}
    rows["load client (bench load)"] = (client1.ru_utime + client1.ru_stime) - (client0.ru_utime + client0.ru_stime)
    print(f"CPU ms per turn over {answered} turns ({wall:.1f} s wall; load average {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after; machine busy {100 * (busy1[0] - busy0[0]) / (busy1[1] - busy0[1]):.0f}% "
          f"of {os.cpu_count()} CPUs):")
    for name, seconds in sorted(rows.items(), key=lambda kv: -kv[1]):
        if seconds > 0:
            print(f"  {name:40s} {1000 * seconds / answered:7.2f}")
    stack = sum(s for n, s in rows.items() if n != "load client (bench load)")
    print(f"  {'stack total':40s} {1000 * stack / answered:7.2f}  "
          f"(at most {answered / stack if stack else 0:.0f} turns/s per fully used CPU)")
