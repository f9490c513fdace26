"""One NATS connection per process, wrapped in a FastStream broker, and what keeps it whole across failovers.

:class:`Connection` connects (declaring the streams), waits out a reconnection
under way, and heals after one (streams declared again, the registered hooks
run). It is the base of :class:`~duocthu_runtime.bus.bus.Bus`, whose other
responsibilities each live in a module of their own: publishing and requests
(:mod:`.publishing`), reading stored messages back (:mod:`.replay`), KV buckets
(:mod:`.buckets`) and the stages' presence (:mod:`.presence`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from faststream.exceptions import IncorrectState
from faststream.nats import NatsBroker, NatsCredentials, NatsUserPassword
from faststream.security import BaseSecurity
from nats.errors import Error as NatsError
from nats.js import JetStreamContext

from duocthu_runtime.bus.streams import ensure_streams
from duocthu_runtime.observability.logging import get_logger
from duocthu_runtime.settings import RuntimeSettings

#: How long a KV request (presence, the rate limit) or a readiness probe's request waits for its answer. In a
#: cluster, a stream or bucket whose leader died answers nothing until a follower is elected (4-9 s): the
#: request is dropped, not queued, so waiting the client's default 5 s only delays the caller, and every
#: caller has a fallback (the last presence reading, the rate limit failing open, an announcement retried 1 s
#: later, the next probe). A healthy one answers in milliseconds.
QUICK_REQUEST_S = 1.0
#: How long a caller may wait for a lost connection to come back before it is told the bus is down: in a
#: cluster the client fails over to another node within milliseconds of its node's death.
RECONNECT_GRACE_S = 2.0

log = get_logger(__name__)


class Connection:
    """The broker, its JetStream contexts, and the work after a reconnection."""

    def __init__(self, settings: RuntimeSettings, *, client_name: str) -> None:
        self.settings = settings
        self.broker = NatsBroker(
            servers=[u.strip() for u in settings.nats_url.split(",") if u.strip()],
            name=client_name,
            max_reconnect_attempts=-1,
            reconnect_time_wait=1,
            connect_timeout=5,
            inbox_prefix=settings.inbox_prefix,  # replies to this identity: only it may subscribe there
            logger=None,
            reconnected_cb=self._on_reconnected,
            security=_security(settings),
        )
        self._reconnect_hooks: list[Callable[[], Awaitable[None]]] = []
        self.reconnects = 0
        #: When (``time.monotonic()``) the last reconnection happened: a restarted server's memory buckets start
        #: empty, so presence says nothing about the stages until they have announced again.
        self.reconnected_at = float("-inf")
        #: Callers of :meth:`wait_connected` waiting for the connection to come back (woken on reconnection).
        self._back: list[asyncio.Future[None]] = []
        #: what runs after a reconnection (declarations, hooks), held so it is not garbage-collected mid-way
        self._healing: set[asyncio.Task[None]] = set()

    def on_reconnect(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run ``hook`` after every reconnection (e.g. to recreate state a restarted server lost)."""
        self._reconnect_hooks.append(hook)

    async def _on_reconnected(self) -> None:
        """The server may be a fresh process: memory KV buckets and even streams may be gone.

        Cached bucket handles are dropped (they are recreated on next use), the
        streams are declared again, and every registered hook runs, in a task
        of their own; a failure is logged and healed lazily by the next use,
        never raised into the client library's callback loop.
        """
        self.reconnects += 1
        self.reconnected_at = time.monotonic()
        for waiter in self._back:
            if not waiter.done():
                waiter.set_result(None)
        self._forget_handles()
        log.warning("bus_reconnected", reconnects=self.reconnects)
        # Side by side, and behind the client's back: in a cluster a stream electing a leader makes its
        # declaration wait its full request timeout, and a hook (announcing presence, reading back missed
        # completions) must not queue behind that, nor hold the client's reconnection loop.
        task = asyncio.create_task(self._after_reconnection())
        self._healing.add(task)
        task.add_done_callback(self._healing.discard)

    def _forget_handles(self) -> None:
        """Drop cached handles a restarted server may have lost (each is recreated on next use)."""

    async def healed(self) -> None:
        """Wait until the work after the reconnections so far (stream declarations, hooks) has run."""
        if self._healing:
            await asyncio.wait(set(self._healing))

    async def _after_reconnection(self) -> None:
        await asyncio.gather(self._redeclare(), *(self._run_hook(hook) for hook in self._reconnect_hooks))

    async def _redeclare(self) -> None:
        try:
            await ensure_streams(self.js, self.settings)
        except (NatsError, TimeoutError) as exc:
            log.warning("bus_redeclare_failed", error=f"{type(exc).__name__}: {exc}")

    @staticmethod
    async def _run_hook(hook: Callable[[], Awaitable[None]]) -> None:
        try:
            await hook()
        except Exception:  # run behind the client's reconnection: log, heal lazily later
            log.exception("bus_reconnect_hook_failed")

    @property
    def js(self) -> JetStreamContext:
        return self.broker.connection.jetstream()

    def quick_js(self) -> JetStreamContext:
        """A JetStream context whose requests wait :data:`QUICK_REQUEST_S` (for callers with a fallback)."""
        return self.broker.connection.jetstream(timeout=QUICK_REQUEST_S)

    @property
    def connected(self) -> bool:
        try:
            return bool(self.broker.connection.is_connected)
        except IncorrectState:  # connection not created yet
            return False

    async def wait_connected(self, within_s: float = RECONNECT_GRACE_S) -> bool:
        """Whether the connection is up, waiting up to ``within_s`` for a reconnection under way.

        A client whose node died is reconnecting to another for a few milliseconds (a cluster) or until the
        supervisor restarts the one server (seconds): a question asked in that instant waits it out instead
        of being told at once that the bus is down.
        """
        if self.connected:
            return True
        try:
            if not self.broker.connection.is_reconnecting:
                return False
        except IncorrectState:
            return False
        back: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._back.append(back)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(back, timeout=within_s)  # woken by _on_reconnected
        finally:
            self._back.remove(back)
        return self.connected

    async def connect(self) -> None:
        """Connect and declare streams, without starting subscribers."""
        await self.broker.connect()
        await ensure_streams(self.js, self.settings)

    async def start(self) -> None:
        await self.connect()
        await self.broker.start()

    async def stop(self) -> None:
        for task in list(self._healing):
            task.cancel()
        await self.broker.stop()


def _security(settings: RuntimeSettings) -> BaseSecurity | None:
    """The identity this process connects as (NATS_USER/NATS_PASSWORD, or a NATS_CREDS file); None: anonymous."""
    if settings.nats_creds:
        return NatsCredentials(settings.nats_creds)
    if settings.nats_user:
        return NatsUserPassword(settings.nats_user, settings.nats_password or "")
    return None
