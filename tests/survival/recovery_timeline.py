"""Where the time goes after a NATS node dies: elections, reconnections, announcements, readiness.

Issue 21 asks for the stack to be ready again within 10 s of a node kill, and nats-server's followers wait a
random 4-9 s before they elect a new leader, so the figure must be split into the server's share and ours.
Most of it is read after the fact from the processes' own logs, which cost nothing while the stack recovers
and are exact: each surviving ``nats-server`` logs every raft group it comes to lead (stream, KV bucket, durable
consumer, meta group), every service logs its reconnection and a presence renewed after failures. Only the
gateway's ``/readyz`` is polled, by one persistent HTTP client, so the measuring opens no connection per poll.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

#: ``[pid] 2026/12/04 09:42:06.443150 [INF] JetStream cluster new stream leader for '$G > RAG_AUDIT'``
_LEADER = re.compile(r"^\[\d+\] (\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+) \[INF\] "
                     r"(?:JetStream cluster new (?:stream|consumer) leader for '[^>]+ > (.+)'"
                     r"|(Self is new JetStream cluster metadata leader))$")
META_GROUP = "_meta_"


def _nats_time(stamp: str) -> float:
    """nats-server logs local wall-clock time without a zone; ``time.time()`` is on the same clock."""
    return datetime.strptime(stamp, "%Y/%m/%d %H:%M:%S.%f").timestamp()


def led_by(jsz: dict[str, Any], node: str) -> set[str]:
    """The replicated raft groups ``node`` leads, from a ``/jsz?accounts=true&streams=true&consumers=true`` report.

    A single-replica consumer (the ordered consumers behind ``Bus.watch``) has no followers to elect a leader:
    it dies with its node and its client creates a new one, so it is not counted.
    """
    groups = {META_GROUP} if (jsz.get("meta_cluster") or {}).get("leader") == node else set()

    def leads(item: dict[str, Any]) -> bool:
        cluster = item.get("cluster") or {}
        return bool(cluster.get("leader") == node and cluster.get("replicas"))

    for account in jsz.get("account_details") or []:
        for stream in account.get("stream_detail") or []:
            if leads(stream):
                groups.add(stream["name"])
            groups.update(f"{stream['name']} > {consumer['name']}"
                          for consumer in stream.get("consumer_detail") or [] if leads(consumer))
    return groups


def elections(logs: Iterable[Path], after: float, before: float) -> dict[str, float]:
    """Per raft group, the wall time a surviving node first logged that it leads it, within (after, before)."""
    first: dict[str, float] = {}
    for path in logs:
        for line in path.read_text(errors="replace").splitlines():
            match = _LEADER.match(line)
            if not match:
                continue
            at = _nats_time(match.group(1))
            group = match.group(2) or META_GROUP
            if after < at < before and at < first.get(group, float("inf")):
                first[group] = at
    return first


def service_events(log_dir: Path, events: set[str], after: float, before: float,
                   fields: tuple[str, ...] = ()) -> list[tuple[float, str, str]]:
    """``(wall time, process, event)`` for the named structured-log events the stack's processes wrote.

    ``fields`` present in a record are appended to its event as ``name=value``.
    """
    found = []
    for path in sorted(log_dir.glob("*.log")):
        for line in path.read_text(errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") not in events or "timestamp" not in record:
                continue
            at = datetime.fromisoformat(record["timestamp"]).timestamp()
            if after < at < before:
                shown = " ".join([str(record["event"]), *(f"{f}={record[f]}" for f in fields if f in record)])
                found.append((at, path.stem, shown))
    return sorted(found)


def _fine(check: str) -> bool:
    return check in ("present", "connected") or (check.endswith(" ready") and not check.startswith("0 "))


@dataclass
class Probe:
    sent: float
    answered: float
    status: int
    failing: str


@dataclass
class ReadyzWatcher:
    """Polls ``url`` every ``every_s`` on one kept-alive connection, from a daemon thread, until stopped."""

    url: str
    every_s: float = 0.1
    probes: list[Probe] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> ReadyzWatcher:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)

    def _run(self) -> None:
        with httpx.Client(timeout=30) as http:
            while not self._stop.is_set():
                sent = time.time()
                try:
                    response = http.get(self.url)
                    status = response.status_code
                    checks = response.json().get("checks", {})
                    failing = ", ".join(f"{k}: {v}" for k, v in checks.items() if not _fine(str(v)))
                except (httpx.HTTPError, ValueError) as exc:
                    status, failing = 0, type(exc).__name__
                self.probes.append(Probe(sent, time.time(), status, failing))
                self._stop.wait(self.every_s)

    def ready_from(self, after: float) -> float | None:
        """The answer time of the first 200 sent after ``after`` from which every later probe was 200 too."""
        ready: float | None = None
        for probe in self.probes:
            if probe.sent < after:
                continue
            if probe.status != 200:
                ready = None
            elif ready is None:
                ready = probe.answered
        return ready

    def spans(self, after: float) -> list[tuple[float, float, int, str, float]]:
        """Runs of equal answers since ``after``: (first sent, last answered, status, failing checks, slowest)."""
        runs: list[tuple[float, float, int, str, float]] = []
        for probe in self.probes:
            if probe.answered < after:
                continue
            took = probe.answered - probe.sent
            if runs and runs[-1][2:4] == (probe.status, probe.failing):
                first, _, status, failing, slowest = runs[-1]
                runs[-1] = (first, probe.answered, status, failing, max(slowest, took))
            else:
                runs.append((probe.sent, probe.answered, probe.status, probe.failing, took))
        return runs
