"""Where one turn's time went, as a ``Server-Timing`` header (durations only: no ids, no text).

The gateway sees the whole turn: its own phases (rate limit, conversation
state, PubAck wait, the wait for the completion, rendering, the store write)
and, from the completion's stage timings, every stage's own time and every
hop between two stages (the previous stage's output stamped → the next stage
holding it: encode, publish, JetStream store, pull delivery, dispatch).  The
header lets ``duocthu bench query --breakdown`` take the bus apart per hop from
real turns without a tracing backend; it is cheap (a few dozen floats).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from duocthu_contracts.envelope import StageTiming


@dataclass
class TurnTimings:
    """Named phase durations in milliseconds, in the order they were taken."""

    phases: list[tuple[str, float]] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def add(self, name: str, ms: float) -> None:
        self.phases.append((name, ms))

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        began = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, (time.perf_counter() - began) * 1000)

    def total(self) -> None:
        """Close the turn: ``total`` is the gateway's whole handling time of the request so far."""
        self.add("total", (time.perf_counter() - self.started) * 1000)

    def header(self) -> str:
        return server_timing(self.phases)


def hop_phases(sent_at: datetime, stages: Sequence[StageTiming], received_at: datetime) -> list[tuple[str, float]]:
    """Each stage's own time (``stage_<name>``) and each hop into it (``hop_<name>``), then ``hop_gateway``.

    A hop is the gap between the cause being stamped (the turn's creation, or
    the previous stage's ``finished_at``) and the next stage starting on it;
    the last hop runs to the gateway holding the completion.  A stage that ran
    twice (generation after a repair) appears twice, numbered.
    """
    out: list[tuple[str, float]] = []
    seen: dict[str, int] = {}
    previous_end = sent_at
    for timing in stages:
        seen[timing.stage] = seen.get(timing.stage, 0) + 1
        name = timing.stage.replace("-", "_") + (str(seen[timing.stage]) if seen[timing.stage] > 1 else "")
        out.append((f"hop_{name}", _ms(previous_end, timing.started_at)))
        out.append((f"stage_{name}", timing.ms))
        previous_end = timing.finished_at
    out.append(("hop_gateway", _ms(previous_end, received_at)))
    return out


def server_timing(phases: Sequence[tuple[str, float]]) -> str:
    """``name;dur=1.234, ...`` (RFC: Server-Timing, durations in milliseconds)."""
    return ", ".join(f"{name};dur={ms:.3f}" for name, ms in phases)


def _ms(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds() * 1000.0
