"""The latest progress of recent ingest jobs, as the workers publish it (``ingest.v1.job.progress``).

Progress is advisory core-NATS traffic, not stored: every gateway replica
subscribes and keeps the newest update per job part in memory (bounded), so
any replica can show an admin how far a job is.  A job that started before
this replica did is shown from its next update on.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import UTC, datetime

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from duocthu_contracts.messages import IngestJobProgress, IngestJobProgressPayload
from duocthu_runtime import Bus, MessageRejected, decode, subject_for_type

KEEP = 50  # job parts remembered; the oldest is forgotten first


class IngestJobBoard:
    def __init__(self, bus: Bus, keep: int = KEEP) -> None:
        self.bus = bus
        self.keep = keep
        self._jobs: OrderedDict[tuple[str, int], tuple[IngestJobProgressPayload, datetime]] = OrderedDict()
        self._sub: Subscription | None = None

    async def start(self) -> None:
        self._sub = await self.bus.broker.connection.subscribe(subject_for_type(IngestJobProgress), cb=self._on)

    async def stop(self) -> None:
        if self._sub is not None:
            await self._sub.unsubscribe()
            self._sub = None

    async def _on(self, msg: Msg) -> None:
        try:
            update = decode(msg.data, IngestJobProgress).payload
        except MessageRejected:
            return
        self.record(update)

    def record(self, update: IngestJobProgressPayload) -> None:
        key = (update.job_id, update.part_index)
        self._jobs.pop(key, None)
        self._jobs[key] = (update, datetime.now(UTC))
        while len(self._jobs) > self.keep:
            self._jobs.popitem(last=False)

    def recent(self) -> list[tuple[IngestJobProgressPayload, datetime]]:
        """Newest first."""
        return list(reversed(self._jobs.values()))
