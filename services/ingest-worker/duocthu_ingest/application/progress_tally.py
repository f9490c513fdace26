"""One count for the progress bar of a release ingested in parts: pages while any part still reads, then chunks.

The workers report each part separately (``ingest.v1.job.progress``); the
person waiting wants one bar.  Parts run in parallel on replicas, so the bar
shows pages until every part has read its pages, then embedded chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from duocthu_contracts.messages import IngestJobProgressPayload


@dataclass(frozen=True)
class TallyView:
    stage: str  # "parse" or "embed"
    unit: str  # "pages" or "chunks"
    done: int
    total: int | None


@dataclass
class ProgressTally:
    parts: int
    _pages: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    _chunks: dict[int, tuple[int, int | None]] = field(default_factory=dict)

    def add(self, update: IngestJobProgressPayload) -> TallyView:
        part = update.part_index
        if update.stage == "parse":
            self._pages[part] = (update.done, update.total)
        elif update.stage in ("embed", "done"):  # "done" carries the part's last (chunk) count
            pages = self._pages.get(part, (0, None))[1]
            self._pages[part] = (pages or 0, pages)  # a part that embeds has read all its pages
            self._chunks[part] = (update.done, update.total)
        return self.view()

    def view(self) -> TallyView:
        reading = len(self._chunks) < self.parts
        counts = self._pages if reading else self._chunks
        done = sum(d for d, _ in counts.values())
        totals = [t for _, t in counts.values()]
        known = len(counts) == self.parts and all(t is not None for t in totals)
        total = sum(t for t in totals if t is not None) if known else None
        return TallyView("parse" if reading else "embed", "pages" if reading else "chunks", done, total)
