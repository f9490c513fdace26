"""Children that cannot outlive their parent."""

from __future__ import annotations

import signal
import sys


def die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """``preexec_fn``: ask Linux to SIGTERM this child when its parent dies (no orphans)."""
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
