"""Content hashes that identify inputs across processes (the source PDF of a release, mainly)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, read in 1 MiB blocks (a full-size PDF never sits in memory twice)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
