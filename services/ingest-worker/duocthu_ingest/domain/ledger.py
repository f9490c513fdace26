"""The coverage ledger (seed 003 §6.2): every extracted span ends in exactly one named state.

It proves that nothing the extractor produced was dropped without a name.
It does not prove the extractor saw everything on the page; that is the
residual-ink check's job.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from duocthu_ingest.domain.model import Span, SpanState

UNASSIGNED = "unassigned"


@dataclass
class CoverageLedger:
    states: dict[str, SpanState] = field(default_factory=dict)
    chars: dict[str, int] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)

    def register(self, spans: Iterable[Span]) -> None:
        for span in spans:
            self.chars.setdefault(span.span_id, len(span.text))

    def assign(self, span_ids: Iterable[str], state: SpanState) -> None:
        """Give spans a state; a span given two different states is a pipeline bug, recorded as a conflict."""
        for span_id in span_ids:
            old = self.states.get(span_id)
            if old is not None and old is not state:
                self.conflicts.append(f"{span_id}: {old.value} -> {state.value}")
                continue
            self.states[span_id] = state

    def state(self, span_id: str) -> SpanState | None:
        return self.states.get(span_id)

    def unassigned(self) -> list[str]:
        return [s for s in self.chars if s not in self.states]

    def summary(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {s.value: {"spans": 0, "chars": 0} for s in SpanState}
        table[UNASSIGNED] = {"spans": 0, "chars": 0}
        for span_id, length in self.chars.items():
            state = self.states.get(span_id)
            row = table[state.value if state is not None else UNASSIGNED]
            row["spans"] += 1
            row["chars"] += length
        return table
