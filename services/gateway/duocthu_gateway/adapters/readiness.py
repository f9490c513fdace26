"""Whether this gateway replica can answer: connected, the streams declared, a ready replica of every stage.

Stage presence is read from the NATS KV bucket every stage announces itself
in (:meth:`Bus.live_stages`).  Implements :class:`duocthu_gateway.ports.Readiness`
and :class:`duocthu_gateway.ports.Availability` (what blocks a turn right now,
read at most once a second so a busy gateway does not scan the bucket per request).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from nats.errors import Error as NatsError
from nats.js.errors import NotFoundError

from duocthu_contracts import subjects as s
from duocthu_contracts.decisions import Reason
from duocthu_gateway.ports import Blocker
from duocthu_runtime import PRESENCE_TTL_S, QUICK_REQUEST_S, Bus, get_logger

log = get_logger(__name__)

#: The streams a turn is written to: one without a leader makes the gateway unready.
TURN_STREAMS = (s.AUDIT_STREAM,)
#: How often a readiness request is sent again while it waits for an answer (see ``_stream_state``).
RESEND_S = 0.25
#: How long a probe waits for a presence reading before it takes the last one (at most one TTL old).
PRESENCE_WAIT_S = 0.5


class BusReadiness:
    """``required_stages`` make ``/readyz`` fail when one has no live replica; only those among ``turn_stages``
    (a question's path) also refuse a turn: a dead ingest worker must not turn every question away (issue 21's
    fault-injection run saw 269 ``stage_unavailable`` answers while only the ingest worker restarted)."""

    def __init__(self, bus: Bus, required_stages: Sequence[str], *, turn_stages: Sequence[str] | None = None,
                 cache_s: float = 1.0) -> None:
        self.bus = bus
        self.required_stages = tuple(required_stages)
        self.turn_stages = tuple(stage for stage in self.required_stages
                                 if turn_stages is None or stage in turn_stages)
        self.cache_s = cache_s
        self._seen: tuple[float, Blocker | None] = (float("-inf"), None)
        self._unreadable_at = float("-inf")
        self._last_read: tuple[float, dict[str, int] | None] = (float("-inf"), None)

    async def blocker(self) -> Blocker | None:
        """The bus being down, or the first required stage with no ready replica; None when a turn can run."""
        if not await self.bus.wait_connected():  # a client failing over to another node is back in milliseconds
            return Blocker(Reason.BUS_UNAVAILABLE)
        at, seen = self._seen
        now = time.monotonic()
        if now - at < self.cache_s:
            return seen
        try:
            live = await self._read_presence(now)
        except (NatsError, TimeoutError) as exc:
            # Connected, but the presence bucket cannot be read: in a cluster its stream is electing a
            # leader after a node died. That blocks nothing (the turn's publish waits the election out);
            # the last known answer stands, and /readyz reports the bucket as unreadable meanwhile.
            log.warning("presence_unreadable", error=f"{type(exc).__name__}: {exc}")
            self._unreadable_at = now
            return seen
        missing = [stage for stage in self.turn_stages if live.get(stage, 0) == 0]
        found = Blocker(Reason.STAGE_UNAVAILABLE, missing[0]) if missing else None
        if found is not None and now - max(self._unreadable_at, self.bus.reconnected_at) < PRESENCE_TTL_S:
            # While the bucket was unreadable the stages could not renew their entries either, so an entry
            # that expired meanwhile says nothing about the stage; nor does a bucket a restarted server
            # recreated empty (the fault run's NATS kill: 38 questions refused, "no replica of understanding",
            # while every stage was alive and about to announce). Give the stages one TTL to announce again
            # (a turn sent now waits in its durable consumer; if the stage is really gone, the turn's end
            # names it).
            log.warning("presence_grace", stage=found.stage)
            found = None
        self._seen = (now, found)
        return found

    async def _read_presence(self, now: float) -> dict[str, int]:
        live = await self.bus.live_stages()
        self._last_read = (now, live)
        return live

    async def check(self) -> tuple[bool, dict[str, str]]:
        """Ready when a turn can run: connected, the turn stream answering, a ready replica of every stage.

        Every request waits at most ``QUICK_REQUEST_S`` (``Bus.quick_js``), and all are sent at once: a stream
        or bucket whose leader died answers nothing until a follower is elected, and a request sent before that
        is never answered, so a probe that waited the client's 5 s per stream reported "not ready" for up to
        15 s after the election. The streams a turn does not touch (ingest jobs, the corpus) fail the check only when the
        server says they do not exist; one electing a leader is reported, not failed (a question is answered
        meanwhile). Presence that cannot be read is taken from the last reading for one presence TTL, as
        :meth:`blocker` does: the stages cannot renew their entries meanwhile either.
        """
        report: dict[str, str] = {"bus": "connected" if self.bus.connected else "disconnected"}
        if not self.bus.connected:
            return False, report
        streams = (s.AUDIT_STREAM, s.INGEST_STREAM, s.CORPUS_STREAM)
        presence = asyncio.create_task(self._presence_state(time.monotonic()))
        found = await asyncio.gather(*(self._stream_state(stream, QUICK_REQUEST_S if stream in TURN_STREAMS
                                                           else RESEND_S) for stream in streams))
        live, presence_detail = await presence
        ok = True
        for stream, state in zip(streams, found, strict=True):
            report[f"stream:{stream}"] = state
            ok = ok and (state == "present" or (stream not in TURN_STREAMS and state != "missing"))
        if presence_detail:
            report["presence"] = presence_detail
        if live is None:
            return False, report
        missing = []
        for stage in self.required_stages:
            count = live.get(stage, 0)
            report[f"stage:{stage}"] = f"{count} ready"
            if count == 0:
                missing.append(stage)
        if missing:
            report["unavailable"] = ", ".join(missing)  # named, so an operator sees which stage has no replica
        return ok and not missing, report

    async def _stream_state(self, stream: str, within_s: float) -> str:
        """``present``, ``missing`` (the server says so), or no answer within ``within_s``.

        The request is sent again every :data:`RESEND_S` within that time, each answer awaited: one that
        reached the stream before its new leader was elected is never answered, one sent after is answered
        at once, so a probe sees the election within a quarter of a second. A stream a turn does not need is
        given one attempt: its answer only tells "missing" apart, which the server says at once.
        """
        js = self.bus.quick_js()

        async def ask(delay_s: float) -> None:
            await asyncio.sleep(delay_s)
            await js.stream_info(stream)

        attempts = [asyncio.create_task(ask(n * RESEND_S)) for n in range(max(1, round(within_s / RESEND_S)))]
        try:
            for attempt in asyncio.as_completed(attempts, timeout=within_s):
                try:
                    await attempt
                except NotFoundError:
                    return "missing"
                except (NatsError, TimeoutError):  # this one went unanswered (or the time is up): the next
                    continue
                return "present"
            return "no answer (electing a leader?)"
        finally:
            for attempt in attempts:
                attempt.cancel()
            await asyncio.gather(*attempts, return_exceptions=True)

    async def _presence_state(self, now: float) -> tuple[dict[str, int] | None, str]:
        try:  # not answered at once: the bucket is electing a leader, or the machine is busy; the last reading
            return await asyncio.wait_for(self._read_presence(now), PRESENCE_WAIT_S), ""
        except (NatsError, TimeoutError) as exc:
            self._unreadable_at = now  # the stages cannot renew their entries either (see blocker)
            read_at, live = self._last_read
            if live is not None and now - read_at < PRESENCE_TTL_S:
                return live, f"unreadable ({type(exc).__name__}), last read {now - read_at:.1f}s ago"
            return None, f"unavailable: {type(exc).__name__}"
