"""A message as it sits in the audit stream, and reading a stream window."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

#: How long reading an audit window may take once it is known to hold messages.
READ_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Recorded:
    """One stored message: stream position, subject, time and the decoded JSON document."""

    stream: str
    seq: int
    subject: str
    time: datetime
    document: dict[str, Any]
    raw: bytes

    @property
    def schema(self) -> str:
        return str(self.document.get("schema", ""))

    @property
    def kind(self) -> str:
        """Schema name without version, e.g. ``rag.turn.completed``."""
        return self.schema.partition("/")[0]

    @property
    def turn_id(self) -> str | None:
        value = self.document.get("turn_id")
        return str(value) if value is not None else None

    @property
    def message_id(self) -> str:
        return str(self.document.get("message_id", ""))

    @property
    def causation_id(self) -> str | None:
        value = self.document.get("causation_id")
        return str(value) if value is not None else None

    @property
    def payload(self) -> dict[str, Any]:
        payload = self.document.get("payload")
        return payload if isinstance(payload, dict) else {}


async def read_window(
    js: JetStreamContext,
    stream: str,
    *,
    since: datetime | None,
    subject: str = ">",
    batch: int = 512,
) -> AsyncGenerator[Recorded, None]:
    """Every message of ``stream`` (matching ``subject``) stored at or after ``since``.

    Uses an ephemeral pull consumer with no acks: reading the audit log never
    changes it and never competes with the stages' durable consumers.
    """
    config = ConsumerConfig(
        ack_policy=AckPolicy.NONE,
        deliver_policy=DeliverPolicy.BY_START_TIME if since else DeliverPolicy.ALL,
        opt_start_time=since,
        filter_subject=subject,
        inactive_threshold=30.0,
        mem_storage=True,
    )
    try:
        info = await js.stream_info(stream)
    except NotFoundError:
        return
    if not info.state.messages:
        return
    sub = await js.pull_subscribe(subject, stream=stream, config=config)
    try:
        # what the consumer holds for us; a fetch that times out before those are read is a slow server (a
        # loaded machine), not the end of the window: fetch again, and fail loudly rather than return a part
        if not (await sub.consumer_info()).num_pending:
            return
        give_up = time.monotonic() + READ_TIMEOUT_S
        while True:
            try:
                messages = await sub.fetch(batch, timeout=1.0)
            except TimeoutError:
                if time.monotonic() > give_up:
                    raise TimeoutError(f"{stream}: the audit window was not read within {READ_TIMEOUT_S:.0f}s") \
                        from None
                continue
            for msg in messages:
                meta = msg.metadata
                try:
                    document = json.loads(msg.data)
                except (UnicodeDecodeError, json.JSONDecodeError):
                    document = {"schema": "", "unreadable": True}
                if not isinstance(document, dict):
                    document = {"schema": "", "unreadable": True}
                yield Recorded(stream, meta.sequence.stream, msg.subject, meta.timestamp, document, msg.data)
                if meta.num_pending == 0:
                    return
    finally:
        await sub.unsubscribe()
