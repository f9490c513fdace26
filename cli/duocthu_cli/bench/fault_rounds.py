#!/usr/bin/env python3
"""Fault injection for longer: kill -9 each process of a supervised stack, again and again, under concurrent load.

    .venv/bin/python scripts/bench_faults.py [--clients 4] [--rounds 2] [--duration 0] [--replicas 2]
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

import argparse
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients (closed loop)")
    parser.add_argument("--rounds", type=int, default=2, help="times each target is killed")
    parser.add_argument("--duration", type=float, default=0.0,
                        help="keep killing (targets in turn) until this many seconds have passed; 0: --rounds")
    parser.add_argument("--replicas", type=int, default=2,
                        help="processes per service, as `duocthu up --replicas` (retrieval: owner and standbys)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated: services and/or nats")
    parser.add_argument("--port", type=int, default=18500, help="gateway HTTP port")
    parser.add_argument("--var-dir", type=Path, default=Path("/tmp/faults/bench"), help="stack state (reused)")
    parser.add_argument("--before", type=float, default=3.0, help="seconds of load before each kill")
    parser.add_argument("--after", type=float, default=3.0, help="seconds of load after the stack is back")
    args = parser.parse_args()
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown targets: {', '.join(unknown)}")

    def log(line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {line}", file=sys.stderr, flush=True)

    args.var_dir.mkdir(parents=True, exist_ok=True)
    seed_embedding_cache(args.var_dir)
    index_sample = bootstrap_sample_corpus(args.var_dir, timeout_s=1800.0, echo=log)
    stack = Stack(var_dir=args.var_dir, gateway_port=args.port, log=log,
                  env={"RATE_LIMIT_PER_MINUTE": "1000000"},
                  replicas=dict.fromkeys(SERVICES, args.replicas))
    stack.backoff_factory = _fast_backoff
    rounds: list[Round] = []
    load_before = _load()
    try:
        stack.start(ready_timeout_s=600.0, bootstrap=lambda running: index_sample(running.nats_url or ""))
        stack.nats_backoff = _fast_backoff()
        stack.supervise_in_background()
        began = time.monotonic()
        number = 0
        while (time.monotonic() - began < args.duration) if args.duration else number < args.rounds * len(targets):
            target = targets[number % len(targets)]
            log(f"kill -9 {target} (kill {number + 1})")
            result = kill_under_load(stack, target, clients=args.clients, before_s=args.before, after_s=args.after)
            rounds.append(result)
            print(" | ".join(result.row()), flush=True)
            for problem in result.problems[:5]:
                print(f"    {problem}", flush=True)
            number += 1
    finally:
        stack.stop()
    print(f"\n{len(rounds)} kills, {args.clients} clients, replicas {args.replicas}; "
          f"load average before {load_before}, after {_load()}\n")
    print(table(rounds))
    print()
    print(summary(rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
