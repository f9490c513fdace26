"""kill -9 of every process of the stack under concurrent load: nothing lost or answered twice, no 5xx, ready again
within 10 s, and a turn caught by a stage crash completes within 10 s (issue 21's done criteria).

One stack shaped as ``duocthu up --replicas 2`` (two processes per stage and two gateways sharing the port; of the
two retrievals one owns the embedded index and the other waits as its warm standby), supervised; one kill per process in turn (replica 0 of each stage, the ingest
worker, the gateway, NATS), four clients asking throughout; what each figure counts is in :mod:`duocthu_cli.bench.faults` (``duocthu bench faults``
runs the same scenario for longer). A killed gateway cuts its clients' connections: they ask again with the same
``X-Correlation-ID`` and must then be answered exactly once (one answer, one history row, no turn completed twice).
"""

from __future__ import annotations

import time

import pytest

from duocthu_cli.bench.faults import NATS, Round, kill_under_load, table
from duocthu_cli.stack.supervisor import Backoff
from tests.fixtures.stack import StackFactory

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

STAGES = ("understanding", "retrieval", "generation", "verifier")
#: ``duocthu up --replicas 2``: every process twice (the second retrieval is the index owner's standby).
REPLICAS = {"understanding": 2, "retrieval": 2, "generation": 2, "verifier": 2, "ingest-worker": 2, "gateway": 2}
TARGETS = (*STAGES, "ingest-worker", "gateway", NATS)
READY_WITHIN_S = 10.0
CAUGHT_TURN_WITHIN_S = 10.0


def _fast_backoff() -> Backoff:
    return Backoff(first_s=0.2, max_s=2.0, stable_after_s=5.0)


def test_kill_9_of_each_process_under_load_loses_and_duplicates_nothing(stack_factory: StackFactory) -> None:
    stack = stack_factory(replicas=REPLICAS, env={"RATE_LIMIT_PER_MINUTE": "100000"})
    began = time.monotonic()
    supervisor: list[str] = []
    stack.log = lambda line: supervisor.append(f"{time.monotonic() - began:6.1f}s {line}")
    stack.backoff_factory = _fast_backoff
    stack.nats_backoff = _fast_backoff()
    stack.supervise_in_background()

    rounds: list[Round] = []
    for target in TARGETS:
        supervisor.append(f"{time.monotonic() - began:6.1f}s kill -9 {target}")
        rounds.append(kill_under_load(stack, target, clients=4, before_s=2.0, after_s=1.0))
    report = table(rounds) + "\n" + "\n".join(supervisor)
    print(report)
    for result in rounds:  # refusals included, with what they named, so a run's log says which stage was missing
        print("\n".join(f"kill -9 {result.target}: {problem}" for problem in result.problems))

    for result in rounds:
        where = f"kill -9 {result.target}:\n{report}\n" + "\n".join(result.problems[:10])
        assert result.sent >= 4 and result.answered == result.sent, where
        assert result.lost == 0 and result.duplicated == 0, where
        assert result.server_errors == 0, where
        assert result.budget == 0, where  # no turn ran out of time: every turn caught by a crash completed
        assert result.unrecorded == 0, where  # records are written before the answer (HISTORY_WRITE_BEHIND off)
        if result.target == "ingest-worker":
            assert result.refused == 0, where  # no question waits for the ingest worker
        if result.target == "nats":  # a restarted server's empty presence bucket is no stage's absence
            assert result.refusals["stage_unavailable"] == 0, where
        # a gateway kill was once seen to give one honest refusal (answered, not lost; cause open in issue 21)
        assert result.ready_s is not None and result.ready_s < READY_WITHIN_S, where
        if result.target in STAGES:
            assert result.longest_turn_s < CAUGHT_TURN_WITHIN_S, where
