"""Children that cannot outlive their parent, and stop when asked."""

from __future__ import annotations

import signal
import subprocess
import sys


def die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """``preexec_fn``: ask Linux to SIGTERM this child when its parent dies (no orphans)."""
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def stop_child(process: subprocess.Popen[bytes] | None, timeout_s: float = 10.0) -> None:
    """SIGTERM a child and wait for it; SIGKILL it if it has not exited within ``timeout_s``."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
