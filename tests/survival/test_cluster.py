"""Scale-out proof (issue 21): the pipeline on a 3-node JetStream cluster survives the kill -9 of a node under load.

The stack runs against :class:`~duocthu_runtime.devstack.nats_cluster.NatsCluster` on loopback (three ``nats-server``
processes, the embedded authorization block on each) with ``BUS_STREAM_REPLICAS=3``. Client threads ask
answerable questions before, during and after the SIGKILL of the node that leads ``RAG_AUDIT`` (the stream
every turn message is stored in). Counted from both ends: every HTTP request is answered with the same
decision as before the kill, and the audit stream holds exactly one request and one completion per turn.
The figures are printed (``-s``) for docs/reliability.md; nothing here asserts a duration.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from nats.errors import Error as NatsError
from nats.js.api import DeliverPolicy

from duocthu_cli.stack.supervisor import Stack
from duocthu_contracts import subjects as s
from duocthu_runtime import Bus, RuntimeSettings
from duocthu_runtime.bus.presence import PRESENCE_BUCKET
from duocthu_runtime.devstack import NatsCluster, embedded_authorization
from tests.fixtures.stack import StackFactory
from tests.survival.recovery_timeline import ReadyzWatcher, elections, led_by, service_events

pytestmark = pytest.mark.e2e

QUESTIONS = ("Chống chỉ định của metformin?", "Liều amoxicilin cho người lớn?", "Liều paracetamol?")
CLIENTS = 4
BEFORE_KILL_S = 6.0
AFTER_KILL_S = 20.0
STREAMS = (s.AUDIT_STREAM, s.AUDIT_REDACTED_STREAM, s.SHADOW_STREAM, s.INGEST_STREAM, s.CORPUS_STREAM,
           f"KV_{PRESENCE_BUCKET}", "KV_gateway_rate")


@dataclass(frozen=True)
class Asked:
    question: str
    started: float
    seconds: float
    status: int
    decision: str
    reason: str
    turn_id: str


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[NatsCluster, dict[str, str]]]:
    authorization, credentials = embedded_authorization(tmp_path / "nats-identities")
    with NatsCluster(root=tmp_path / "cluster", authorization=authorization) as running:
        yield running, credentials


async def _stream_state(settings: RuntimeSettings) -> dict[str, tuple[int, str | None, list[str]]]:
    """Per stream: configured replicas, leader, and the other replicas' names."""
    bus = Bus(settings, client_name="cluster-inspector")
    await bus.connect()
    try:
        state = {}
        for name in STREAMS:
            info = await bus.js.stream_info(name)
            cluster = info.cluster
            others = [peer.name or "" for peer in (cluster.replicas or [])] if cluster else []
            state[name] = (info.config.num_replicas or 1, cluster.leader if cluster else None, others)
        return state
    finally:
        await bus.stop()


async def _stored_turns(settings: RuntimeSettings) -> tuple[Counter[str], Counter[str]]:
    """How many requests and completions the audit stream holds per turn id (live lane)."""
    bus = Bus(settings, client_name="cluster-audit-count")
    await bus.connect()
    requested: Counter[str] = Counter()
    completed: Counter[str] = Counter()
    try:
        for subject, counter in (("rag.v1.turn.requested", requested), ("rag.v1.turn.completed.>", completed),
                                 ("rag.v1.turn.verified.>", completed)):  # any stage's end, the verifier's sealed
            sub = await bus.js.subscribe(subject, stream=s.AUDIT_STREAM, ordered_consumer=True,
                                         deliver_policy=DeliverPolicy.ALL)
            while True:
                try:
                    msg = await sub.next_msg(timeout=2)
                except TimeoutError:
                    break
                counter[json.loads(msg.data)["turn_id"]] += 1
            await sub.unsubscribe()
    finally:
        await bus.stop()
    return requested, completed


async def _lead(settings: RuntimeSettings, stream: str, node: str, timeout_s: float = 30.0) -> None:
    """Move ``stream``'s leadership to ``node`` (a preferred stepdown), unless it leads already."""
    bus = Bus(settings, client_name="cluster-stepdown")
    await bus.connect()
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            info = await bus.js.stream_info(stream)
            if info.cluster and info.cluster.leader == node:
                return
            with contextlib.suppress(NatsError, TimeoutError):  # a stepdown under way answers nothing useful
                await bus.broker.connection.request(f"$JS.API.STREAM.LEADER.STEPDOWN.{stream}",
                                                    json.dumps({"placement": {"preferred": node}}).encode(),
                                                    timeout=5)
            await asyncio.sleep(1.0)
        raise AssertionError(f"{stream} would not move its leader to {node}")
    finally:
        await bus.stop()


def _users_on(nats: NatsCluster, name: str) -> list[str]:
    """The identities connected to node ``name`` (the clients its death forces to fail over)."""
    port = nats.nodes[nats.index_of(name)].http_port
    connz = httpx.get(f"http://127.0.0.1:{port}/connz?auth=true", timeout=3).json()
    return sorted(str(conn.get("authorized_user", "?")) for conn in connz.get("connections") or [])


def _ask_in_a_loop(stack: Stack, client: int, until: threading.Event, out: list[Asked]) -> None:
    with httpx.Client(timeout=90) as http:
        n = client
        while not until.is_set():
            question = QUESTIONS[n % len(QUESTIONS)]
            n += 1
            t0 = time.monotonic()
            response = http.post(f"{stack.url}/v1/rag/query", json={"query": question})
            seconds = time.monotonic() - t0
            body = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
            out.append(Asked(question, t0, seconds, response.status_code, str(body.get("decision")),
                             " ".join(str(body.get(k)) for k in ("reason", "reason_message") if body.get(k)),
                             str(body.get("trace_id"))))


def _breakdown(nats: NatsCluster, stack: Stack, victim: str, *, victim_led: set[str], killed: float,
               restarted: float, readyz: ReadyzWatcher) -> tuple[float, float, float]:
    """Print where the time went after the kill; returns (victim's groups all led, /readyz 200, both), in s.

    Raises when a group the victim led got no new leader or /readyz was not 200 again before the restart.
    """
    logs = [node.log_file for i, node in enumerate(nats.nodes) if nats.node_name(i) != victim and node.log_file]
    elected = {group: at - killed for group, at in elections(logs, killed, restarted).items() if group in victim_led}
    unled = sorted(victim_led - set(elected))
    assert not unled, f"no new leader before the restart for {unled}"
    ready_at = readyz.ready_from(killed)
    assert ready_at is not None, f"/readyz not 200 again before the restart: {readyz.spans(killed)[-3:]}"
    events = service_events(stack.var_dir / "logs",
                            {"bus_reconnected", "presence_renewed", "completion_catch_up", "completion_catch_up_done",
                             "completion_catch_up_unneeded", "completion_catch_up_failed"},
                            killed, restarted, fields=("turns", "attempts", "recovered"))
    print(f"\nafter the kill of {victim} (s):")
    for at, process, event in events:
        print(f"  {at - killed:6.2f} {process} {event}")
    # What a turn waits for: its stream and the live consumers of its stages (a KV bucket electing a leader
    # holds no turn: the rate limit fails open, presence stands on its last reading).
    turn_path = {g: t for g, t in elected.items() if g == s.AUDIT_STREAM or g.startswith(f"{s.AUDIT_STREAM} > ")}
    for group, seconds in sorted(elected.items(), key=lambda item: item[1]):
        print(f"  {seconds:6.2f} new leader: {group}{'  (turn path)' if group in turn_path else ''}")
    for first, last, status, failing, slowest in readyz.spans(killed):
        print(f"  {first - killed:6.2f}-{last - killed:.2f} /readyz {status} {failing} (slowest answer {slowest:.2f})")
    groups_s = max(elected.values(), default=0.0)
    print(f"  victim led {len(victim_led)} of the groups; turn path led again {max(turn_path.values(), default=0):.2f}, "
          f"all {groups_s:.2f}; /readyz 200 from {ready_at - killed:.2f}")
    return groups_s, ready_at - killed, max(groups_s, ready_at - killed)


@pytest.mark.parametrize("audit_leader", ["victim", "survivor"])
def test_a_node_killed_under_load_loses_and_duplicates_nothing(
        cluster: tuple[NatsCluster, dict[str, str]], stack_factory: StackFactory, audit_leader: str) -> None:
    """``victim``: the gateway's node leads the turn stream, so the gateway fails over while RAG_AUDIT elects a
    leader (no completion can be stored in the gap). ``survivor``: another node leads it, so completions are stored
    at once, also during the gateway's failover, and one missed by its core subscription must be read back."""
    nats, credentials = cluster
    stack = stack_factory(nats_url=nats.url, credentials=credentials,
                          env={"BUS_STREAM_REPLICAS": "3", "RATE_LIMIT_PER_MINUTE": "100000"})
    settings = stack.ops_settings()
    expected = {}
    with httpx.Client(timeout=60) as http:  # the answers the questions get with the cluster whole
        for question in QUESTIONS:
            body = http.post(f"{stack.url}/v1/rag/query", json={"query": question}).json()
            assert body["decision"] in ("answerable", "clarify"), (question, body)
            expected[question] = body["decision"]
    assert "answerable" in expected.values(), expected

    state = asyncio.run(_stream_state(settings))
    names = {nats.node_name(i) for i in range(nats.size)}
    for stream, (replicas, leader, others) in state.items():
        assert replicas == 3, f"{stream} has {replicas} replica(s)"
        assert leader in names and {leader, *others} == names, (stream, leader, others)

    # The kill of the node the gateway is connected to (its completions arrive there, core NATS).
    victim = next(nats.node_name(i) for i in range(nats.size) if "gateway" in _users_on(nats, nats.node_name(i)))
    leader = victim if audit_leader == "victim" else next(n for n in sorted(names) if n != victim)
    asyncio.run(_lead(settings, s.AUDIT_STREAM, leader))
    meta_leader = nats.meta_leader()
    failing_over = _users_on(nats, victim)
    readyz = ReadyzWatcher(f"{stack.url}/readyz").start()
    results: list[Asked] = []
    stop = threading.Event()
    clients = [threading.Thread(target=_ask_in_a_loop, args=(stack, i, stop, results), daemon=True)
               for i in range(CLIENTS)]
    for thread in clients:
        thread.start()
    time.sleep(BEFORE_KILL_S)
    sent_before = len(results)
    victim_led = led_by(nats.jsz(nats.index_of(victim), details=True), victim)
    killed = time.time()
    nats.kill(victim)
    killed_at = time.monotonic()
    time.sleep(AFTER_KILL_S)
    stop.set()
    for thread in clients:
        thread.join(120)
    assert not any(thread.is_alive() for thread in clients), "a client is still waiting for an answer"
    readyz.stop()

    restarted = time.time()
    nats.start()  # the killed node rejoins on its store and catches up
    groups_s, readyz_s, recovered_s = _breakdown(nats, stack, victim, victim_led=victim_led, killed=killed,
                                                    restarted=restarted, readyz=readyz)
    requested, completed = asyncio.run(_stored_turns(settings))
    turn_ids = [asked.turn_id for asked in results]
    server_errors = [a for a in results if a.status >= 500]
    wrong = [a for a in results if a.status != 200 or a.decision != expected[a.question]]
    lost = [t for t in turn_ids if completed[t] == 0]
    duplicated = [t for t, n in completed.items() if n > 1] + [t for t, n in requested.items() if n > 1]
    during = [a for a in results if a.started + a.seconds >= killed_at]
    longest = max(results, key=lambda a: a.seconds)
    print(f"\ncluster kill: victim {victim} (the gateway's node; RAG_AUDIT led by {leader}; meta leader {meta_leader}), "
          f"its clients {failing_over}, sent {len(results)} ({sent_before} before the kill, {len(during)} finishing after it), "
          f"answered {len(results) - len(wrong)}, lost {len(lost)}, duplicated {len(duplicated)}, "
          f"5xx {len(server_errors)}, longest turn {longest.seconds:.2f}s, "
          f"every group the victim led has a new leader {groups_s:.2f}s and /readyz is 200 {readyz_s:.2f}s "
          f"after the kill: ready again {recovered_s:.2f}s")
    assert len(results) > sent_before > 0 and len(during) > 0
    assert not server_errors, server_errors[:5]
    assert not wrong, (Counter((a.status, a.decision, a.reason) for a in wrong), wrong[:3])
    assert len(set(turn_ids)) == len(turn_ids)
    assert not lost, lost[:5]
    assert not duplicated, duplicated[:5]
    assert all(requested[t] == 1 for t in turn_ids)
