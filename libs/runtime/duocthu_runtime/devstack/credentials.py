"""The embedded server's generated passwords, one per identity, kept in the var dir (mode 0600).

``duocthu up`` creates them on first start and reuses them after (a
restarted NATS or a restarted ``up`` keeps the same identities, so a running
CLI command or a supervised child reconnects); the CLI reads the ``ops``
password from here to act as the operator without any environment.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from duocthu_runtime.access.table import IDENTITIES
from duocthu_runtime.devstack.private_files import write_private

CREDENTIALS_FILE = "credentials.json"


def load_credentials(nats_dir: Path) -> dict[str, str] | None:
    """The passwords ``duocthu up`` generated under ``nats_dir``, or None when it never ran there with auth."""
    path = nats_dir / CREDENTIALS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return {str(k): str(v) for k, v in data.items()}


def ensure_credentials(nats_dir: Path) -> dict[str, str]:
    """The passwords under ``nats_dir``, generating any identity's that is missing."""
    current = load_credentials(nats_dir) or {}
    wanted = {entry.user: current.get(entry.user) or secrets.token_urlsafe(24) for entry in IDENTITIES}
    if wanted != current:
        write_private(nats_dir / CREDENTIALS_FILE, json.dumps(wanted, indent=2) + "\n")
    return wanted


def embedded_authorization(nats_dir: Path) -> tuple[str, dict[str, str]]:
    """The ``authorization`` block for a private server on ``nats_dir``, and the passwords it admits."""
    from duocthu_runtime.access.server_config import authorization_block, literal

    passwords = ensure_credentials(nats_dir)
    return authorization_block(lambda user: literal(passwords[user])), passwords
