"""Comparing a shadow replay with what was recorded (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from duocthu_cli.audit.chain import cited_chunk_ids


@dataclass(frozen=True)
class TurnDiff:
    turn_id: str
    query: str
    recorded: dict[str, Any]
    replayed: dict[str, Any] | None
    changes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def outcome(completed: dict[str, Any] | None) -> dict[str, Any] | None:
    if completed is None:
        return None
    payload = completed.get("payload", {})
    return {
        "decision": payload.get("decision"),
        "reason": payload.get("reason"),
        "cited_chunk_ids": cited_chunk_ids(completed),
    }


def compare(turn_id: str, query: str, recorded: dict[str, Any] | None, replayed: dict[str, Any] | None) -> TurnDiff:
    before, after = outcome(recorded), outcome(replayed)
    changes: list[str] = []
    if before is None:
        changes.append("no recorded completion")
    if after is None:
        changes.append("no completion in the replay (timed out)")
    if before is not None and after is not None:
        for key in ("decision", "reason", "cited_chunk_ids"):
            if before[key] != after[key]:
                changes.append(f"{key}: {before[key]!r} -> {after[key]!r}")
    return TurnDiff(turn_id, query, before or {}, after, changes)
