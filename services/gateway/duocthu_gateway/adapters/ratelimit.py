"""Per-client rate limit shared by every gateway replica: fixed one-minute windows counted in NATS KV.

A counter key per (client, window) is updated with compare-and-set, so two
replicas counting the same client never lose an increment; keys expire with
the bucket's TTL.  A KV failure fails open (the request is served, a warning
is logged): refusing clinicians because the counter store hiccuped would be
worse than briefly not counting.  Implements :class:`duocthu_gateway.ports.RateLimit`.
"""

from __future__ import annotations

import hashlib
import time

from faststream.exceptions import FastStreamException
from nats.errors import Error as NatsError
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue

from duocthu_contracts.subjects import RATE_LIMIT_BUCKET
from duocthu_gateway.ports import RateDecision
from duocthu_runtime import Bus, get_logger

log = get_logger(__name__)
BUCKET = RATE_LIMIT_BUCKET
WINDOW_S = 60


class RateLimiter:
    def __init__(self, bus: Bus, per_minute: int) -> None:
        self.bus = bus
        self.per_minute = per_minute
        self._kv: KeyValue | None = None
        bus.on_reconnect(self.forget)

    async def forget(self) -> None:
        """Drop the bucket handle after a reconnection; the next check recreates the bucket."""
        self._kv = None

    async def _bucket(self) -> KeyValue:
        if self._kv is None:  # a bucket electing a leader answers nothing: fail open after 1 s, not 5 s
            self._kv = await self.bus.key_value(BUCKET, ttl_s=WINDOW_S * 2)
        return self._kv

    async def check(self, client: str, now: float | None = None) -> RateDecision:
        if self.per_minute <= 0:
            return RateDecision(True, 0, WINDOW_S)
        moment = time.time() if now is None else now
        window = int(moment // WINDOW_S)
        key = f"{hashlib.sha256(client.encode()).hexdigest()[:24]}.{window}"  # no raw client address in keys
        try:
            kv = await self._bucket()
            for _ in range(8):
                try:
                    entry = await kv.get(key)
                    count = int((entry.value or b"0").decode()) + 1
                    await kv.update(key, str(count).encode(), last=entry.revision)
                except KeyNotFoundError:
                    count = 1
                    await kv.create(key, b"1")
                except KeyWrongLastSequenceError:
                    continue  # another replica counted first: read again
                break
            else:
                return RateDecision(True, self.per_minute, WINDOW_S)
        except (NatsError, TimeoutError, FastStreamException) as exc:
            self._kv = None  # a restarted server lost the memory bucket: recreate it on the next request
            log.warning("rate_limit_unavailable", error=f"{type(exc).__name__}: {exc}")
            return RateDecision(True, self.per_minute, WINDOW_S)
        if count > self.per_minute:
            return RateDecision(False, self.per_minute, WINDOW_S, retry_after_s=int((window + 1) * WINDOW_S - moment) + 1)
        return RateDecision(True, self.per_minute, WINDOW_S)
