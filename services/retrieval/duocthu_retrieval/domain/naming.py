"""Collection names: one collection per release (and per rebuild), a sidecar per collection.

A release never writes into the collection that is being served; the live
alias moves only after the new collection passed its gates (seed 003 §11,
DESIGN.md "A release is written to a new collection and switched live by a
Qdrant alias").
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^a-z0-9_-]+")
SIDECAR_SUFFIX = "__manifest"


def release_slug(release_id: str) -> str:
    slug = _UNSAFE.sub("_", release_id.lower()).strip("_")
    if not slug:
        raise ValueError(f"release id {release_id!r} has no usable characters for a collection name")
    return slug[:120]


def collection_name(prefix: str, release_id: str, build: str | None = None) -> str:
    """``<prefix>__<release>`` for the stream's own build, ``…__<build>`` for a rebuild."""
    name = f"{prefix}__{release_slug(release_id)}"
    return f"{name}__{release_slug(build)}" if build else name


def sidecar_name(collection: str) -> str:
    """The manifest sidecar (seed 003 §11.3: ``duocthu_v1__manifest``) that also holds the batch ledger."""
    return f"{collection}{SIDECAR_SUFFIX}"


def is_release_collection(name: str, prefix: str) -> bool:
    return name.startswith(f"{prefix}__") and not name.endswith(SIDECAR_SUFFIX)
