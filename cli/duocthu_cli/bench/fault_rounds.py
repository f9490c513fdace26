"""Fault injection for longer: kill -9 each process of a supervised stack, again and again, under concurrent load.

    duocthu bench faults [--clients 4] [--rounds 2] [--duration 0] [--replicas 2]
        [--targets understanding,retrieval,generation,verifier,ingest-worker,gateway,nats]
        [--port 18500] [--var-dir /tmp/faults/bench] [--before 3] [--after 3]

The scenario of tests/survival/test_fault_injection.py (what each figure counts:
``duocthu_cli.bench.faults``), on the sample formulary as ``duocthu up`` serves it
(indexed into ``--var-dir`` on the first run, reused afterwards): the targets are
killed in turn, ``--rounds`` times over (or until ``--duration`` seconds have
passed, when given), with ``--clients`` clients asking throughout. Prints one
row per kill, then per target the sums and the medians of the times, with the
load average before and after. No assertion: the test holds the criteria.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from duocthu_cli.bench.faults import NATS, Round, kill_under_load, table
from duocthu_cli.stack.sample_corpus import bootstrap_sample_corpus
from duocthu_cli.stack.sample_embeddings import seed_embedding_cache
from duocthu_cli.stack.supervisor import SERVICES, Backoff, Stack

TARGETS = ("understanding", "retrieval", "generation", "verifier", "ingest-worker", "gateway", NATS)


def _fast_backoff() -> Backoff:
    """The tests' supervisor backoff: a first restart after 0.2 s (``duocthu up`` waits 0.5 s)."""
    return Backoff(first_s=0.2, max_s=2.0, stable_after_s=5.0)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _median(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return "never"
    return f"{statistics.median(known):.1f}" + (f" ({len(values) - len(known)} never)" if len(known) < len(values)
                                                 else "")


def summary(rounds: list[Round]) -> str:
    """Per target: the counts summed over its kills, the longest turn's maximum, the times' medians."""
    by_target: dict[str, list[Round]] = defaultdict(list)
    for result in rounds:
        by_target[result.target].append(result)
    lines = ["| killed | kills | sent | answered | refused | budget | lost | duplicated | rerun | unrecorded | 5xx | "
             "longest turn s (max) | ready s (median) | replaced s (median) |", "|" + "---|" * 14]
    for target, results in by_target.items():
        sums = [sum(getattr(r, name) for r in results) for name in
                ("sent", "answered", "refused", "budget", "lost", "duplicated", "rerun", "unrecorded",
                 "server_errors")]
        lines.append(f"| {target} | {len(results)} | " + " | ".join(map(str, sums)) +
                     f" | {max(r.longest_turn_s for r in results):.1f} | {_median([r.ready_s for r in results])} | "
                     f"{_median([r.replaced_s for r in results])} |")
    return "\n".join(lines)


def run_faults(*, targets: list[str], clients: int, rounds: int, duration: float, replicas: int, port: int,
               var_dir: Path, before: float, after: float) -> None:
    """Kill each of ``targets`` (services and/or ``nats``) in turn under load; print every kill, then the summary."""
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise ValueError(f"unknown targets: {', '.join(unknown)} (choose from {', '.join(TARGETS)})")

    def log(line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {line}", file=sys.stderr, flush=True)

    var_dir.mkdir(parents=True, exist_ok=True)
    seed_embedding_cache(var_dir)
    index_sample = bootstrap_sample_corpus(var_dir, timeout_s=1800.0, echo=log)
    stack = Stack(var_dir=var_dir, gateway_port=port, log=log,
                  env={"RATE_LIMIT_PER_MINUTE": "1000000"},
                  replicas=dict.fromkeys(SERVICES, replicas))
    stack.backoff_factory = _fast_backoff
    kills: list[Round] = []
    load_before = _load()
    try:
        stack.start(ready_timeout_s=600.0, bootstrap=lambda running: index_sample(running.nats_url or ""))
        stack.nats_backoff = _fast_backoff()
        stack.supervise_in_background()
        began = time.monotonic()
        number = 0
        while (time.monotonic() - began < duration) if duration else number < rounds * len(targets):
            target = targets[number % len(targets)]
            log(f"kill -9 {target} (kill {number + 1})")
            result = kill_under_load(stack, target, clients=clients, before_s=before, after_s=after)
            kills.append(result)
            print(" | ".join(result.row()), flush=True)
            for problem in result.problems[:5]:
                print(f"    {problem}", flush=True)
            number += 1
    finally:
        stack.stop()
    print(f"\n{len(kills)} kills, {clients} clients, replicas {replicas}; "
          f"load average before {load_before}, after {_load()}\n")
    print(table(kills))
    print()
    print(summary(kills))
