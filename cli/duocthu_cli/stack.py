"""Running the whole stack as child processes (``duocthu up`` and the e2e tests).

Every service is a real process talking to a real NATS server; the stack
only supervises them: start, wait for readiness, restart a crashed child,
and stop everything (children die with the parent, so nothing is orphaned
even if the supervisor itself is killed).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from duocthu_runtime import child_process
from duocthu_runtime.child_process import die_with_parent
from duocthu_runtime.nats_server import NatsServer, free_port

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

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout_s: float = 10.0) -> None:
        child_process.stop(self.process, timeout_s)

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

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.gateway_port}"

    def start(self, ready_timeout_s: float = 120.0, ready_path: str = "/readyz",
              bootstrap: Callable[[Stack], None] | None = None) -> Stack:
        """Start NATS and every child; run ``bootstrap`` (e.g. index the sample corpus), then wait for readiness."""
        self.var_dir.mkdir(parents=True, exist_ok=True)
        if self.nats_url is None:
            self.nats = NatsServer(store_dir=self.var_dir / "nats", log_file=self.var_dir / "logs" / "nats.log")
            self.nats.start()
            self.nats_url = self.nats.url
        for name in self.services:
            for replica in range(self.replicas.get(name, 1)):
                self.add_child(name, replica).start()
        if bootstrap is not None:
            bootstrap(self)
        self.wait_ready(ready_timeout_s, ready_path)
        return self

    def base_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env)
        env["NATS_URL"] = self.nats_url or ""
        env.setdefault("VAR_DIR", str(self.var_dir.resolve()))
        env.setdefault("LOG_FORMAT", "json")
        return env

    def add_child(self, name: str, replica: int) -> Child:
        env = self.base_env()
        port = free_port()
        env["HEALTH_PORT"] = str(port)
        env["INSTANCE_ID"] = f"{name}-{replica}-{os.getpid()}"
        if name == "gateway":
            env["HTTP_PORT"] = str(self.gateway_port)
        child = Child(name, replica, env, self.var_dir / "logs" / f"{name}-{replica}.log", port)
        self.children.append(child)
        return child

    def wait_ready(self, timeout_s: float, path: str = "/readyz") -> None:
        """Wait until the gateway answers ``path`` with 200 (``/healthz`` when stages are absent)."""
        deadline = time.monotonic() + timeout_s
        last = ""
        while time.monotonic() < deadline:
            for child in self.children:
                if not child.alive():
                    code = child.process.returncode if child.process else None
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

    def supervise_once(self, max_restarts: int = 5) -> list[str]:
        """Restart children that died; returns the labels restarted."""
        restarted = []
        for child in self.children:
            if not child.alive() and child.restarts < max_restarts:
                child.restarts += 1
                child.start()
                restarted.append(child.label)
        return restarted

    def stop(self) -> None:
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
