"""Running the whole stack as child processes (``duocthu up`` and the e2e tests).

Every service is a real process talking to a real NATS server; the stack
only supervises them: start, wait for readiness, restart a crashed child
(NATS included, on the same port and store, so the services reconnect to
it), and stop everything (children die with the parent, so nothing is
orphaned even if the supervisor itself is killed).

Restarts back off exponentially (:class:`Backoff`) so a child that crashes
at start-up does not spin, and the backoff resets once a child has stayed up
for a stable period, so a crash next week is restarted as fast as the first
one. There is no restart limit: a stage that never stays up is retried
forever at the longest delay, logged every time, and the gateway's
``/readyz`` names it (no live replica) meanwhile.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from duocthu_runtime import NatsServerError, RuntimeSettings
from duocthu_runtime.access import OPS, identity_of_service
from duocthu_runtime.devstack import NatsServer, die_with_parent, embedded_authorization, free_port, stop_child
from duocthu_runtime.seal import DevKeys, ensure_dev_keys

#: The restart delays: first, growth factor, ceiling; and how long a child must stay up to reset them.
BACKOFF_FIRST_S = 0.5
BACKOFF_FACTOR = 2.0
BACKOFF_MAX_S = 30.0
STABLE_AFTER_S = 60.0

Log = Callable[[str], None]


@dataclass
class Backoff:
    """When a crashed child may be restarted next: exponential, reset after a stable run."""

    first_s: float = BACKOFF_FIRST_S
    factor: float = BACKOFF_FACTOR
    max_s: float = BACKOFF_MAX_S
    stable_after_s: float = STABLE_AFTER_S
    failures: int = 0
    started_at: float = 0.0
    not_before: float = 0.0

    def started(self, now: float) -> None:
        self.started_at = now

    def crashed(self, now: float) -> float:
        """Record a crash seen at ``now``; returns the delay before the next start."""
        if now - self.started_at >= self.stable_after_s:
            self.failures = 0  # it had been up long enough: this is a fresh failure, not a crash loop
        delay = min(self.max_s, self.first_s * self.factor ** self.failures)
        self.failures += 1
        self.not_before = now + delay
        return delay

    def due(self, now: float) -> bool:
        return now >= self.not_before

SERVICES: dict[str, str] = {
    "understanding": "duocthu_understanding.main",
    "retrieval": "duocthu_retrieval.main",
    "generation": "duocthu_generation.main",
    "verifier": "duocthu_verifier.main",
    "ingest-worker": "duocthu_ingest.main",
    "gateway": "duocthu_gateway.main",
}


class StackError(RuntimeError):
    """The stack did not come up (a child exited or readiness timed out)."""


@dataclass
class Child:
    name: str
    replica: int
    env: dict[str, str]
    log_path: Path
    health_port: int
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    backoff: Backoff = field(default_factory=Backoff)
    waiting: bool = False  # crashed, restart scheduled

    @property
    def label(self) -> str:
        return f"{self.name}#{self.replica}"

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 - owned by the child process
        self.process = subprocess.Popen(
            [sys.executable, "-m", SERVICES[self.name]],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,  # noqa: PLW1509 - only calls prctl
            start_new_session=True,  # a terminal's Ctrl-C reaches the supervisor only
        )
        log.close()
        self.backoff.started(time.monotonic())

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout_s: float = 10.0) -> None:
        stop_child(self.process, timeout_s)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            if sig == signal.SIGKILL:
                self.process.wait()


@dataclass
class Stack:
    var_dir: Path
    gateway_port: int = 8080
    nats_url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    replicas: Mapping[str, int] = field(default_factory=dict)
    services: tuple[str, ...] = tuple(SERVICES)
    nats: NatsServer | None = None
    children: list[Child] = field(default_factory=list)
    log: Log = field(default=lambda line: print(line, file=sys.stderr, flush=True))
    backoff_factory: Callable[[], Backoff] = Backoff
    nats_backoff: Backoff = field(default_factory=Backoff)
    #: the identities' passwords when this stack runs its own NATS (generated into ``<var dir>/nats``)
    credentials: dict[str, str] = field(default_factory=dict)
    #: the verdict seal's key pair, generated into ``<var dir>/keys`` (the private key named to the verifier only)
    _keys: DevKeys | None = None
    _nats_waiting: bool = False
    _supervisor: threading.Event | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.gateway_port}"

    def start(self, ready_timeout_s: float = 120.0, ready_path: str = "/readyz",
              bootstrap: Callable[[Stack], None] | None = None) -> Stack:
        """Start NATS and every child; run ``bootstrap`` (e.g. index the sample corpus), then wait for readiness."""
        self.var_dir.mkdir(parents=True, exist_ok=True)
        if self.nats_url is None:
            # Auth everywhere (issue 21): one identity per service, least privilege, an ops identity for the CLI.
            authorization, self.credentials = embedded_authorization(self.var_dir / "nats")
            self.nats = NatsServer(store_dir=self.var_dir / "nats", log_file=self.var_dir / "logs" / "nats.log",
                                   authorization=authorization)
            self.nats.start()
            self.nats_backoff = self.backoff_factory()
            self.nats_backoff.started(time.monotonic())
            self.nats_url = self.nats.url
        later: list[Child] = []
        for name in self.services:
            for replica in range(self.replicas.get(name, 1)):
                child = self.add_child(name, replica)
                if name == "gateway" and replica > 0:
                    later.append(child)  # after the first has migrated the store: replicas would race on SQLite
                else:
                    child.start()
        if bootstrap is not None:
            bootstrap(self)
        self.wait_ready(ready_timeout_s, ready_path)
        for child in later:
            child.start()
        if later:
            self.wait_ready(ready_timeout_s, ready_path)  # raises if a later gateway died at start
        return self

    def base_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env)
        env["NATS_URL"] = self.nats_url or ""
        env.setdefault("VAR_DIR", str(self.var_dir.resolve()))
        env.setdefault("LOG_FORMAT", "json")
        return env

    def ops_settings(self, **overrides: Any) -> RuntimeSettings:
        """Settings to act as the operator on this stack's NATS (tests, the bootstrap of ``up``).

        The stack's own environment counts as the children's does: the
        operator declares the streams too and may update them, so an operator
        that missed ``BUS_STREAM_REPLICAS=3`` would scale the cluster's
        replicated streams back down to one replica.
        """
        fields = RuntimeSettings.model_fields
        from_env = {key.lower(): value for key, value in self.env.items() if key.lower() in fields}
        from_env.pop("nats_url", None)
        if self.credentials:
            from_env.update({"nats_user": OPS, "nats_password": self.credentials[OPS]})
            from_env.pop("nats_creds", None)
        return RuntimeSettings(**{"nats_url": self.nats_url or "", **from_env, **overrides})

    @property
    def verdict_keys(self) -> DevKeys:
        if self._keys is None:
            self._keys = ensure_dev_keys(self.var_dir)
        return self._keys

    def add_child(self, name: str, replica: int) -> Child:
        env = self.base_env()
        # this stack's own key pair, unless the stack was given keys (the machine's environment is not asked)
        keys = {"VERDICT_PUBLIC_KEYS": self.verdict_keys.public_keys,
                "VERDICT_SIGNING_KEY_FILE": str(self.verdict_keys.signing_key_file.resolve())}
        env.update({key: self.env.get(key, value) for key, value in keys.items()})
        if name != "verifier":  # the private key is the verifier's alone
            env.pop("VERDICT_SIGNING_KEY_FILE")
        if self.credentials:
            user = identity_of_service(name).user
            env.update({"NATS_USER": user, "NATS_PASSWORD": self.credentials[user]})
            for inherited in ("NATS_CREDS", "NATS_INBOX_PREFIX"):
                env.pop(inherited, None)
        port = free_port()
        env["HEALTH_PORT"] = str(port)
        env["INSTANCE_ID"] = f"{name}-{replica}-{os.getpid()}"
        if name == "gateway":
            env["HTTP_PORT"] = str(self.gateway_port)
            if self.replicas.get("gateway", 1) > 1:
                env["HTTP_REUSE_PORT"] = "1"  # the replicas share the port: one dying leaves it served
        child = Child(name, replica, env, self.var_dir / "logs" / f"{name}-{replica}.log", port,
                      backoff=self.backoff_factory())
        self.children.append(child)
        return child

    def wait_ready(self, timeout_s: float, path: str = "/readyz") -> None:
        """Wait until the gateway answers ``path`` with 200 (``/healthz`` when stages are absent)."""
        deadline = time.monotonic() + timeout_s
        last = ""
        while time.monotonic() < deadline:
            for child in self.children:
                if child.process is not None and not child.alive():  # (a later gateway is not started yet)
                    code = child.process.returncode
                    raise StackError(f"{child.label} exited with code {code}; see {child.log_path}")
            try:
                response = httpx.get(f"{self.url}{path}", timeout=2)
                if response.status_code == 200:
                    return
                last = response.text
            except httpx.HTTPError as exc:
                last = str(exc)
            time.sleep(0.2)
        raise StackError(f"stack not ready after {timeout_s}s: {last}")

    def find(self, name: str, replica: int = 0) -> Child:
        for child in self.children:
            if child.name == name and child.replica == replica:
                return child
        raise KeyError(f"{name}#{replica}")

    def supervise_once(self, now: float | None = None) -> list[str]:
        """Restart what died (NATS first), each after its backoff; returns the labels restarted.

        Every crash and every restart is logged through :attr:`log`; there is no
        limit on restarts (the backoff caps their rate instead).
        """
        moment = time.monotonic() if now is None else now
        restarted: list[str] = []
        if self.nats is not None and not self.nats.alive():
            if not self._nats_waiting:
                self._nats_waiting = True
                delay = self.nats_backoff.crashed(moment)
                self.log(f"nats-server exited with code {self.nats.returncode}; restarting in {delay:.1f}s")
            if self.nats_backoff.due(moment):
                try:
                    self.nats.start()
                except NatsServerError as exc:
                    self.log(f"nats-server restart failed: {exc}")
                    self.nats_backoff.crashed(time.monotonic())
                else:
                    self._nats_waiting = False
                    self.nats_backoff.started(time.monotonic())
                    self.log("restarted nats-server")
                    restarted.append("nats-server")
        for child in self.children:
            if child.alive():
                continue
            if not child.waiting:
                child.waiting = True
                code = child.process.returncode if child.process else None
                delay = child.backoff.crashed(moment)
                self.log(f"{child.label} exited with code {code}; restarting in {delay:.1f}s "
                         f"(crash {child.backoff.failures} in a row)")
            if child.backoff.due(moment):
                child.restarts += 1
                child.waiting = False
                child.start()
                self.log(f"restarted {child.label} (restart {child.restarts})")
                restarted.append(child.label)
        return restarted

    def supervise_in_background(self, interval_s: float = 0.2) -> threading.Event:
        """Run :meth:`supervise_once` in a daemon thread until the returned event is set (tests, ``up``)."""
        stop = threading.Event()
        self._supervisor = stop

        def loop() -> None:
            while not stop.wait(interval_s):
                self.supervise_once()

        threading.Thread(target=loop, name="duocthu-supervisor", daemon=True).start()
        return stop

    def stop(self) -> None:
        if self._supervisor is not None:
            self._supervisor.set()
        for child in reversed(self.children):
            if child.alive() and child.process is not None:
                child.process.terminate()
        for child in reversed(self.children):
            child.stop()
        if self.nats is not None:
            self.nats.stop()

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
