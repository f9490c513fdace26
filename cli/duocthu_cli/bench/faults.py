"""Fault injection under load: kill -9 one process of a running stack while clients ask, and count what happened.

Issue 21's done criteria are about what a user and the audit log see when any
process dies (a stage, the gateway, NATS), so this counts from both sides and
never from a process's own opinion of itself:

* the clients (one thread each, closed loop) record every HTTP status and
  every answer; a question is one ``X-Correlation-ID``, and a client whose
  connection breaks (the gateway died under it) asks again with the *same*
  id until it is answered or its patience runs out;
* ``RAG_AUDIT`` (read as the operator) holds every turn the bus accepted and
  every completion the pipeline published, so a turn that never completed,
  or completed twice, is seen there even if no client noticed;
* the gateway's history store holds what was recorded per question.

What each figure means (:class:`Round`):

* **sent** — questions started (distinct correlation ids);
* **answered** — questions that got HTTP 200 with a decision (retries included);
* **refused** — of those, honest abstentions for the fault itself (``bus_unavailable``,
  ``stage_unavailable``) rather than an answer to the question;
* **budget** — of those, ``request_budget_exhausted``: the turn ran out of time (a turn caught by a crash
  that did not complete);
* **lost** — sent and never answered, or a turn the bus accepted that never completed;
* **duplicated** — a turn completed more than once in ``RAG_AUDIT``, or a question recorded more than once in
  the history;
* **rerun** — a question whose first turn completed unheard (its gateway died holding the HTTP request) and
  whose retry ran a second turn: one answer for the client and one history row, but the pipeline's work twice;
* **unrecorded** — answered, but with no row in the history: the gateway writes a turn's record behind its
  response, so a gateway killed in between answers the question and loses its record;
* **5xx** — HTTP responses with a status of 500 or more (a broken connection is not a response);
* **longest turn** — first send to answer of the slowest question, retries included;
* **ready** — from the kill until the stack serves again: a process of the killed service runs and answers its
  own ``/readyz`` (a surviving replica counts; for NATS: the server runs and every service is back on it) and
  the gateway's ``/readyz`` is 200;
* **replaced** — from the kill until the killed process itself is back (restarted by the supervisor) and ready
  (a restarted retrieval beside a live one is a standby that answers nothing: restarted is all it can be).
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import httpx
from nats.errors import TimeoutError as NatsTimeoutError

from duocthu_cli.stack.supervisor import Child, Stack
from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Lane
from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnVerified
from duocthu_runtime import Bus, decode

#: Answerable questions over the sample monographs (a real turn through every stage).
QUESTIONS = (
    "Chống chỉ định của metformin?",
    "Liều amoxicilin cho người lớn?",
    "Liều paracetamol cho người lớn?",
    "Tác dụng không mong muốn của metformin?",
)
#: What a process is called here: a service of the stack (replica 0 is killed) or the bus.
NATS = "nats"
#: Abstentions that name the fault instead of answering (the user is told at once, nothing is lost).
REFUSALS = frozenset({"bus_unavailable", "stage_unavailable"})
BUDGET = "request_budget_exhausted"


@dataclass
class Question:
    """One question as its client saw it (retries with the same correlation id included)."""

    correlation_id: str
    started: float
    finished: float | None = None
    decision: str | None = None
    reason: str | None = None
    reason_message: str = ""  # a refusal names what was unavailable: kept so a report can say which
    attempts: int = 0
    broken: int = 0  # connections that broke before a response (the gateway died holding the request)
    statuses: Counter[int] = field(default_factory=Counter)

    @property
    def seconds(self) -> float | None:
        return None if self.finished is None else self.finished - self.started


class Clients:
    """``count`` closed-loop clients asking ``QUESTIONS`` in turn until :meth:`stop`; each question is retried with
    its correlation id after a broken connection or a 5xx, for at most ``patience_s``."""

    def __init__(self, url: str, *, count: int, tag: str, patience_s: float = 60.0,
                 request_timeout_s: float = 50.0, questions: Sequence[str] = QUESTIONS) -> None:
        self.url = url
        self.count = count
        self.tag = tag
        self.patience_s = patience_s
        self.request_timeout_s = request_timeout_s
        self.questions = tuple(questions)
        self.asked: list[Question] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> Clients:
        for index in range(self.count):
            thread = threading.Thread(target=self._run, args=(index,), name=f"fault-client-{index}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> list[Question]:
        """Stop starting questions, wait for the ones in flight (bounded by the patience), return all of them."""
        self._stop.set()
        for thread in self._threads:
            thread.join(self.patience_s + self.request_timeout_s + 5)
        with self._lock:
            return list(self.asked)

    def _run(self, index: int) -> None:
        with httpx.Client(timeout=self.request_timeout_s) as client:
            number = 0
            while not self._stop.is_set():
                question = Question(f"{self.tag}-c{index}-{number}", time.monotonic())
                with self._lock:
                    self.asked.append(question)
                self._ask(client, question, self.questions[(index + number) % len(self.questions)])
                number += 1

    def _ask(self, client: httpx.Client, question: Question, query: str) -> None:
        while time.monotonic() - question.started < self.patience_s:
            question.attempts += 1
            try:
                response = client.post(f"{self.url}/v1/rag/query", json={"query": query},
                                       headers={"X-Correlation-ID": question.correlation_id})
            except httpx.TransportError:  # refused, reset or cut off: the same question again, same id
                question.broken += 1
                time.sleep(0.2)
                continue
            question.statuses[response.status_code] += 1
            if response.status_code >= 500:
                time.sleep(0.2)
                continue
            if response.status_code == 200:
                body = response.json()
                question.decision, question.reason = body.get("decision"), body.get("reason")
                question.reason_message = str(body.get("reason_message") or "")
                question.finished = time.monotonic()
            return


@dataclass(frozen=True)
class Audit:
    """Per correlation id: the turns the bus accepted, and each turn's number of completions (live lane)."""

    turns: dict[str, set[str]]
    completions: Counter[str]


@dataclass
class Round:
    """The figures of one kill under load (see the module docstring for what each counts)."""

    target: str
    sent: int = 0
    answered: int = 0
    refused: int = 0
    refusals: Counter[str] = field(default_factory=Counter)  # refused questions per reason
    budget: int = 0
    lost: int = 0
    duplicated: int = 0
    rerun: int = 0
    unrecorded: int = 0
    server_errors: int = 0
    broken: int = 0
    longest_turn_s: float = 0.0
    ready_s: float | None = None
    replaced_s: float | None = None
    problems: list[str] = field(default_factory=list)

    HEADER = ("killed", "sent", "answered", "refused", "budget", "lost", "duplicated", "rerun", "unrecorded",
              "5xx", "broken conn.", "longest turn s", "ready s", "replaced s")

    def row(self) -> tuple[str, ...]:
        return (self.target, str(self.sent), str(self.answered), str(self.refused), str(self.budget),
                str(self.lost), str(self.duplicated), str(self.rerun), str(self.unrecorded), str(self.server_errors),
                str(self.broken),
                f"{self.longest_turn_s:.1f}", _seconds(self.ready_s), _seconds(self.replaced_s))


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.1f}"


def table(rounds: Sequence[Round]) -> str:
    """A Markdown table of ``rounds`` (the bench prints it; docs/reliability.md quotes one)."""
    lines = ["| " + " | ".join(Round.HEADER) + " |", "|" + "---|" * len(Round.HEADER)]
    lines += ["| " + " | ".join(r.row()) + " |" for r in rounds]
    return "\n".join(lines)


def kill(stack: Stack, target: str) -> Child | None:
    """SIGKILL ``target``: its first replica that is serving (a standby retrieval is not), or the stack's NATS
    server (then None)."""
    if target == NATS:
        if stack.nats is None:
            raise ValueError("this stack does not run its own NATS")
        stack.nats.kill()
        return None
    replicas = [child for child in stack.children if child.name == target]
    victim = next((child for child in replicas if _child_ready(stack, child)), replicas[0])
    victim.kill(signal.SIGKILL)
    return victim


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _child_ready(stack: Stack, child: Child) -> bool:
    if not child.alive():
        return False
    return _ready(stack.url if child.name == "gateway" else f"http://127.0.0.1:{child.health_port}")


def serving_again(stack: Stack, target: str) -> bool:
    """The stack serves again after ``target`` was killed: some process of it is ready, and so is the gateway."""
    if target == NATS:
        return replaced(stack, None)
    return any(_child_ready(stack, child) for child in stack.children if child.name == target) and _ready(stack.url)


def replaced(stack: Stack, victim: Child | None) -> bool:
    """The killed process itself is back and ready (``None``, NATS: the server, and every service on it again)."""
    if victim is None:
        if stack.nats is None or not stack.nats.alive():
            return False
        # every service back on the bus; of the retrievals, the owner (a standby answers nothing until it owns)
        owners = [child for child in stack.children if child.name == "retrieval"]
        others = [child for child in stack.children if child.name != "retrieval"]
        return (all(_child_ready(stack, child) for child in others)
                and (not owners or any(_child_ready(stack, child) for child in owners)) and _ready(stack.url))
    if victim.name == "retrieval" and sum(child.name == "retrieval" for child in stack.children) > 1:
        return victim.alive() and _ready(stack.url)  # restarted as the standby: it answers nothing until it owns
    return _child_ready(stack, victim) and _ready(stack.url)


def seconds_until(done: Callable[[], bool], since: float, timeout_s: float) -> float | None:
    """Seconds from ``since`` until ``done()``; None when ``timeout_s`` passes first."""
    while time.monotonic() - since < timeout_s:
        if done():
            return time.monotonic() - since
        time.sleep(0.1)
    return None


async def read_audit(stack: Stack, prefix: str) -> Audit:
    """Every live turn requested and completed in ``RAG_AUDIT`` whose correlation id starts with ``prefix``."""
    bus = Bus(stack.ops_settings(), client_name="fault-audit")
    await bus.broker.connect()
    turns: dict[str, set[str]] = {}
    completions: Counter[str] = Counter()
    try:
        ends: tuple[tuple[str, type[TurnRequested | TurnCompleted]], ...] = (
            ("rag.v1.turn.requested", TurnRequested), ("rag.v1.turn.completed.>", TurnCompleted),
            ("rag.v1.turn.verified.>", TurnVerified))  # a stage's own end, and the verifier's sealed one
        for subject, cls in ends:
            sub = await bus.js.pull_subscribe(subject, stream=s.AUDIT_STREAM)
            try:
                while True:
                    try:
                        batch = await sub.fetch(256, timeout=1.0)
                    except (TimeoutError, NatsTimeoutError):
                        break
                    for msg in batch:
                        await msg.ack()
                        message = decode(msg.data, cls)
                        if message.lane is not Lane.LIVE or not message.correlation_id.startswith(prefix):
                            continue
                        if isinstance(message, TurnRequested):
                            turns.setdefault(message.correlation_id, set()).add(message.turn_id)
                        else:
                            completions[message.turn_id] += 1
            finally:
                await sub.unsubscribe()
    finally:
        await bus.stop()
    return Audit(turns, completions)


def history_rows(stack: Stack, prefix: str) -> Counter[str]:
    """Rows per correlation id in the gateway's history (the default SQLite store under the var dir)."""
    with sqlite3.connect(stack.var_dir / "gateway.db") as db:
        rows = db.execute("SELECT correlation_id, COUNT(*) FROM rag_turns WHERE correlation_id LIKE ? "
                          "GROUP BY correlation_id", (f"{prefix}%",)).fetchall()
    return Counter({str(cid): int(n) for cid, n in rows})


def tally(target: str, asked: Sequence[Question], audit: Audit, history: Counter[str]) -> Round:
    """The figures of a round from what the clients saw, the audit stream and the history."""
    result = Round(target, sent=len(asked))
    for question in asked:
        result.server_errors += sum(n for code, n in question.statuses.items() if code >= 500)
        result.broken += question.broken
        if question.finished is None:
            result.lost += 1
            result.problems.append(f"{question.correlation_id}: not answered ({dict(question.statuses)}, "
                                   f"{question.broken} broken connections)")
            continue
        result.answered += 1
        if question.reason in REFUSALS:
            result.refused += 1
            result.refusals[question.reason] += 1
            result.problems.append(f"{question.correlation_id}: refused {question.reason} after "
                                   f"{question.seconds or 0.0:.1f}s, attempt {question.attempts}: "
                                   f"{question.reason_message}")
        result.budget += question.reason == BUDGET
        result.longest_turn_s = max(result.longest_turn_s, question.seconds or 0.0)
        turns = audit.turns.get(question.correlation_id, set())
        if len(turns) > 1:
            result.rerun += 1
        if history[question.correlation_id] == 0:
            result.unrecorded += 1
            result.problems.append(f"{question.correlation_id}: answered, not in the history")
        if history[question.correlation_id] > 1:
            result.duplicated += 1
            result.problems.append(f"{question.correlation_id}: {history[question.correlation_id]} history rows")
    for correlation_id, turns in audit.turns.items():
        for turn_id in turns:
            count = audit.completions[turn_id]
            if count == 0:
                result.lost += 1
                result.problems.append(f"{correlation_id}: turn {turn_id} accepted by the bus, never completed")
            elif count > 1:
                result.duplicated += 1
                result.problems.append(f"{correlation_id}: turn {turn_id} completed {count} times")
    return result


def kill_under_load(stack: Stack, target: str, *, clients: int = 4, before_s: float = 2.0, after_s: float = 2.0,
                    ready_timeout_s: float = 60.0, tag: str | None = None) -> Round:
    """Ask with ``clients`` clients, kill ``target`` after ``before_s``, wait until the stack serves again and
    the killed process is replaced (so rounds do not overlap), ask for ``after_s`` more, then count. The stack must be supervised (:meth:`Stack.supervise_in_background`)."""
    prefix = tag or f"fault-{target}-{int(time.time() * 1000)}"
    load = Clients(stack.url, count=clients, tag=prefix).start()
    time.sleep(before_s)
    killed_at = time.monotonic()
    victim = kill(stack, target)
    ready_s = seconds_until(lambda: serving_again(stack, target), killed_at, ready_timeout_s)
    replaced_s = seconds_until(lambda: replaced(stack, victim), killed_at, ready_timeout_s)
    time.sleep(after_s)
    asked = load.stop()
    # the pipeline may still be finishing a turn whose client gave up: let the audit settle first
    time.sleep(1.0)
    result = tally(target, asked, asyncio.run(read_audit(stack, prefix)), history_rows(stack, prefix))
    result.ready_s, result.replaced_s = ready_s, replaced_s
    return result
