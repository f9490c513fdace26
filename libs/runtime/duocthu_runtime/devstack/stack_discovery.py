"""Find the running stack for an operator's command.

``duocthu up`` starts its NATS server on a free port and writes the listen
address into ``<var dir>/nats/nats-server.conf``.  Every CLI command that
talks to the stack (audit, ingest, index …) resolves its NATS URL here, so
that right after ``make run`` it reaches that server without any
environment: an explicit ``NATS_URL`` (or ``--nats-url``) still wins, and
without either a command fails with a clear message instead of dialling a
default port where another NATS (or none) may listen.  Credentials (the ops
identity) come from ``NATS_USER``/``NATS_PASSWORD`` or ``NATS_CREDS`` through
:class:`~duocthu_runtime.settings.RuntimeSettings` when set, else from the
passwords ``duocthu up`` generated into ``<var dir>/nats/credentials.json``
(its NATS refuses a client without an identity).
"""

from __future__ import annotations

import socket
from pathlib import Path
from urllib.parse import urlparse

from duocthu_runtime.access.table import OPS
from duocthu_runtime.devstack.credentials import load_credentials
from duocthu_runtime.devstack.nats_server import discover_running
from duocthu_runtime.settings import RuntimeSettings

#: What an operator reads when no stack was found.
NO_STACK_HINT = "start `duocthu up` (or `make run`), pass --var-dir, or set NATS_URL"


def reachable(url: str, timeout_s: float = 0.5) -> bool:
    """Whether any server of a (comma separated) NATS URL accepts a TCP connection."""
    for server in url.split(","):
        parsed = urlparse(server.strip())
        try:
            with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 4222), timeout=timeout_s):
                return True
        except (OSError, ValueError):
            continue
    return False


def stack_nats_url(var_dir: Path, nats_url: str | None = None) -> str | None:
    """The NATS URL to use: ``nats_url`` when given, else the server ``duocthu up`` runs on ``var_dir``."""
    if nats_url:
        return nats_url
    return discover_running(var_dir / "nats")


def ops_settings(nats_url: str, var_dir: Path | None = None) -> RuntimeSettings:
    """Runtime settings for a command acting as the operator on ``nats_url``.

    Credentials from the environment win; otherwise the ``ops`` identity of
    the stack on ``var_dir``, when ``duocthu up`` generated one there.
    """
    settings = RuntimeSettings(nats_url=nats_url)
    if settings.nats_user or settings.nats_creds or var_dir is None:
        return settings
    passwords = load_credentials(var_dir / "nats")
    if not passwords or OPS not in passwords:
        return settings
    return settings.model_copy(update={"nats_user": OPS, "nats_password": passwords[OPS]})
