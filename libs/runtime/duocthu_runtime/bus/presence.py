"""Which stages are alive: each replica announces itself in a KV bucket whose entries expire.

The service host (:mod:`duocthu_runtime.service`) announces its stage, and the
gateway's readiness reads how many ready replicas each stage has.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from nats.errors import Error as NatsError
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from duocthu_contracts import subjects as s
from duocthu_runtime.bus.buckets import Buckets

PRESENCE_BUCKET = s.PRESENCE_BUCKET
PRESENCE_TTL_S = 15.0


class Presence(Buckets):
    """This process's announcements, and the count of live replicas per stage (from the bucket's own index)."""

    _presence: KeyValue | None = None

    def _forget_handles(self) -> None:
        self._presence = None  # the bucket may have gone with a restarted server
        super()._forget_handles()

    async def presence(self) -> KeyValue:
        if self._presence is None:
            self._presence = await self.key_value(PRESENCE_BUCKET, ttl_s=PRESENCE_TTL_S)
        return self._presence

    async def announce(self, stage: str, instance_id: str, ready: bool) -> None:
        """Record that ``instance_id`` of ``stage`` is alive (expires after the bucket TTL)."""
        body = {"stage": stage, "instance": instance_id, "ready": ready, "at": datetime.now(UTC).isoformat()}
        try:
            kv = await self.presence()
            await kv.put(f"{stage}.{_key_token(instance_id)}", json.dumps(body).encode())
        except (NatsError, TimeoutError):
            self._presence = None  # the bucket may have gone with a restarted server: recreate on next use
            raise

    async def live_stages(self) -> dict[str, int]:
        """Number of ready, unexpired instances per stage."""
        try:
            return await self._live_stages()
        except (NatsError, TimeoutError):
            self._presence = None
            raise

    async def _live_stages(self) -> dict[str, int]:
        """Keys are listed from the bucket stream's own subject index, one request, then read one by one.

        ``KeyValue.keys()`` would open an ordered push consumer per read (a gateway reads presence every
        second and on every ``/readyz``): a consumer created and deleted each time, whose client-side
        bookkeeping decides when the listing is complete. A loaded full run once read a presence with no
        stage at all. The subject index is the server's own answer in one reply, with no consumer to track.
        """
        kv = await self.presence()
        prefix = f"$KV.{PRESENCE_BUCKET}."
        info = await self.quick_js().stream_info(f"KV_{PRESENCE_BUCKET}", subjects_filter=f"{prefix}>")
        counts: dict[str, int] = {}
        for subject in sorted(info.state.subjects or {}):
            try:
                entry = await kv.get(subject[len(prefix):])
            except KeyNotFoundError:  # expired (or deleted) between the listing and the read
                continue
            if entry.value is None:
                continue
            body = json.loads(entry.value)
            if body.get("ready"):
                counts[body["stage"]] = counts.get(body["stage"], 0) + 1
        return counts


def _key_token(value: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in value)
