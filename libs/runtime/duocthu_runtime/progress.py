"""The one progress display of the duocthu command's long jobs (in the runtime: the services' CLI commands use it too).

A bar with counts, rate and ETA (rich) while stdout is a terminal; nothing
while it works when it is not (CI logs, pipes), and one summary line either
way when the job ends, so a log still says how much was done and how long it
took.  Every long command (``up`` while indexing, ``ingest``, ``index
rebuild``, ``corpus synth``, ``eval``, ``bench``) reports through this.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import IO, TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

T = TypeVar("T")


class JobProgress:
    """Progress of one job: ``advance``/``update`` as work is done; a summary line on exit."""

    def __init__(self, label: str, total: int | None = None, *, unit: str = "items",
                 stream: IO[str] | None = None, live: bool | None = None) -> None:
        self.label = label
        self.unit = unit
        self.total = total
        self.completed = 0
        self._stream = stream or sys.stdout
        # ``live`` forces the terminal's behaviour either way (a test's force_terminal; --no-progress)
        self._console = Console(file=self._stream, force_terminal=live)
        self.live = self._console.is_terminal if live is None else live
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._started = time.monotonic()

    def __enter__(self) -> JobProgress:
        self._started = time.monotonic()
        if self.live:
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[unit]}"), TimeElapsedColumn(), TextColumn("ETA"),
                                 TimeRemainingColumn(), console=self._console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total, unit=self.unit)
        return self

    def update(self, completed: int, total: int | None = None, *, what: str | None = None,
               unit: str | None = None) -> None:
        """Set the count done so far (and the total once it is known; ``unit`` when a job moves to another kind)."""
        self.completed = completed
        if total is not None:
            self.total = total
        if unit is not None:
            self.unit = unit
        if self._bar is not None and self._task is not None:
            description = f"{self.label} ({what})" if what else self.label
            self._bar.update(self._task, completed=completed, total=self.total, description=description,
                             unit=self.unit)

    def advance(self, amount: int = 1) -> None:
        self.update(self.completed + amount)

    def track(self, items: Iterable[T]) -> Iterator[T]:
        """Yield ``items``, counting each one as done once the caller asks for the next."""
        for item in items:
            yield item
            self.advance()

    def summary(self, failed: bool = False) -> str:
        elapsed = time.monotonic() - self._started
        of = f"/{self.total}" if self.total is not None else ""
        rate = f", {self.completed / elapsed:.1f} {self.unit}/s" if elapsed > 0 and self.completed else ""
        status = " (stopped)" if failed else ""
        return f"{self.label}: {self.completed}{of} {self.unit} in {elapsed:.1f} s{rate}{status}"

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
        print(self.summary(failed=kind is not None), file=self._stream, flush=True)
