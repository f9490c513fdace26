"""One NATS connection per process, wrapped in a FastStream broker.

Publishing goes through :meth:`Bus.publish`, which is the only place that
knows the rules: the subject follows from the message type, lane and origin;
``Nats-Msg-Id`` is the message id (JetStream drops a re-publish); the call
returns only after JetStream has stored the message, so a stage can ack its
input knowing its output is durable.  :meth:`Bus.request` is the one way to
call a replica (request/reply, FastStream encoding the request and the
reply model decoding it), and :meth:`Bus.follow` the one way to read a
stored message type from a point in its stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Literal, TypeVar

from faststream.exceptions import FastStreamException, IncorrectState
from faststream.nats import NatsBroker, NatsCredentials, NatsUserPassword
from faststream.security import BaseSecurity
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import ConnectionReconnectingError, NoRespondersError
from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import (
    BucketNotFoundError,
    KeyNotFoundError,
    NoStreamResponseError,
    ServiceUnavailableError,
)
from nats.js.kv import KeyValue
from pydantic import BaseModel, ValidationError

from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Message
from duocthu_contracts.rpc import RpcRequest
from duocthu_runtime.bus.streams import bucket_config, ensure_streams
from duocthu_runtime.bus.subjects import stream_for, subject_for, subject_for_type
from duocthu_runtime.bus.versioning import decode, encode
from duocthu_runtime.errors import MessageRejected, NoReply
from duocthu_runtime.observability.logging import get_logger
from duocthu_runtime.settings import RuntimeSettings

PRESENCE_BUCKET = s.PRESENCE_BUCKET
#: One stored publish waits at most this long for its PubAck before it is sent again (same message id).
PUBLISH_ATTEMPT_S = 2.0
#: The pause between two attempts while a stream has no leader.
PUBLISH_PAUSE_S = 0.25
PRESENCE_TTL_S = 15.0
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

#: What a stored publish outlives by sending again: every one passes when a stream has a leader again, or when
#: the connection is back (a restarted server: the client is reconnecting or the broker not yet connected).
_TRANSIENT = (NoStreamResponseError, NoRespondersError, ServiceUnavailableError, ConnectionReconnectingError,
              TimeoutError, NatsError, FastStreamException)

M = TypeVar("M", bound=Message)
R = TypeVar("R", bound=BaseModel)

#: Where :meth:`Bus.follow` starts reading: the last stored message, only new ones, or all of them.
Since = Literal["last", "new", "all"]
_DELIVER: dict[Since, DeliverPolicy] = {"last": DeliverPolicy.LAST, "new": DeliverPolicy.NEW,
                                        "all": DeliverPolicy.ALL}


class Bus:
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
        self._presence: KeyValue | None = None
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
        self._presence = None
        log.warning("bus_reconnected", reconnects=self.reconnects)
        # Side by side, and behind the client's back: in a cluster a stream electing a leader makes its
        # declaration wait its full request timeout, and a hook (announcing presence, reading back missed
        # completions) must not queue behind that, nor hold the client's reconnection loop.
        task = asyncio.create_task(self._after_reconnection())
        self._healing.add(task)
        task.add_done_callback(self._healing.discard)

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

    async def publish(self, message: Message, *, within_s: float | None = None) -> bool:
        """Publish durably; returns False when JetStream dropped it as a duplicate.

        Retried for up to ``BUS_PUBLISH_RETRY_S`` while the stream cannot
        store it (no leader, connection failing over, PubAck lost): in a
        cluster, the kill of the node leading a stream leaves it leaderless
        for seconds, and a turn must wait that out rather than fail; a single
        server killed and restarted by the supervisor is back within seconds
        too.  ``within_s`` bounds the retrying (a turn's own deadline).
        """
        subject = subject_for(message)
        headers = {"Nats-Msg-Id": message.message_id}
        traceparent = getattr(message, "traceparent", None)
        if traceparent:
            headers["traceparent"] = traceparent
        body, stream = encode(message), stream_for(subject)
        give_up = time.monotonic() + (self.settings.bus_publish_retry_s if within_s is None else within_s)
        attempt = 0
        while True:
            attempt += 1
            left = give_up - time.monotonic()
            try:
                ack = await self.broker.publish(body, subject, headers=dict(headers), stream=stream,
                                                timeout=max(1.0, min(PUBLISH_ATTEMPT_S, left)))
            except _TRANSIENT as exc:
                # No stream leader yet (a node died and its replicas are electing one), or the PubAck went
                # with a dying node: the same Nats-Msg-Id makes the retry idempotent, so retry until due.
                if time.monotonic() + PUBLISH_PAUSE_S >= give_up:
                    raise
                log.warning("publish_retried", subject=subject, attempt=attempt,
                            error=f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(PUBLISH_PAUSE_S)
                continue
            return not bool(getattr(ack, "duplicate", False))

    async def publish_fire_and_forget(self, message: Message) -> None:
        """Core-NATS publish for advisory messages (progress) that need no PubAck."""
        await self.broker.publish(encode(message), subject_for(message))

    async def request(self, request: RpcRequest, reply: type[R], *, timeout_s: float) -> R:
        """Ask one replica (core-NATS request/reply on ``request.SUBJECT``); raises :class:`NoReply`."""
        try:
            answer = await self.broker.request(request, type(request).SUBJECT, timeout=timeout_s)
        except (NatsError, TimeoutError) as exc:  # no responders, or none answered in time
            raise NoReply(f"no replica answered {type(request).SUBJECT}: {type(exc).__name__}") from exc
        try:
            return reply.model_validate_json(answer.body)
        except ValidationError as exc:
            raise NoReply(f"unreadable reply on {type(request).SUBJECT}: {exc.errors()[0]['msg']}") from exc

    async def watch(self, cls: type[M], callback: Callable[[M], Awaitable[None]], *,
                    since: Since = "last") -> Subscription:
        """Deliver stored ``cls`` messages from ``since`` on, then every new one, to *this* process.

        Unlike a stage consumer (one shared durable, each message to one
        replica), every replica needs state such as the live drug catalog, and
        an operator command needs to see one outcome, so this is an ephemeral
        ordered consumer: nothing is acked and no durable state is created.
        """
        subject = subject_for_type(cls)

        async def on_msg(msg: Msg) -> None:
            try:
                message = decode(msg.data, cls)
            except MessageRejected as exc:
                log.error("watch_rejected", subject=subject, reason=exc.reason)
                return
            await callback(message)

        sub: Subscription = await self.js.subscribe(subject, stream=stream_for(subject), ordered_consumer=True,
                                                    deliver_policy=_DELIVER[since], cb=on_msg)
        return sub

    async def stored_since(self, subject: str, since: datetime, callback: Callable[[Msg], Awaitable[None]], *,
                           name: str, idle_s: float) -> Subscription:
        """Deliver the messages stored on ``subject`` from ``since`` (the server's clock) on to *this* process.

        For a core subscriber that may have missed messages while its connection failed over (the gateway's
        completions): a push consumer named ``name``, created on the *filtered* create subject so the
        permission table can pin what it reads to ``subject``, delivering to this identity's own inbox,
        unacknowledged. No delete is needed (nor granted): once the returned subscription is dropped the
        server removes the consumer after ``idle_s`` without interest. Raises the JetStream error when the
        stream cannot create it (e.g. while it has no leader); the caller retries.
        """
        nc = self.broker.connection
        sub: Subscription = await nc.subscribe(nc.new_inbox(), cb=callback)
        config = ConsumerConfig(name=name, filter_subject=subject, deliver_subject=sub.subject,
                                deliver_policy=DeliverPolicy.BY_START_TIME, opt_start_time=since,
                                ack_policy=AckPolicy.NONE, inactive_threshold=idle_s, mem_storage=True,
                                num_replicas=1)
        try:
            await self.quick_js().add_consumer(stream_for(subject), config)
        except BaseException:
            with contextlib.suppress(NatsError):
                await sub.unsubscribe()
            raise
        return sub

    @contextlib.asynccontextmanager
    async def follow(self, cls: type[M], *, since: Since = "new") -> AsyncIterator[asyncio.Queue[M]]:
        """A queue of the ``cls`` messages stored from ``since`` on (subscribe *before* triggering the work)."""
        queue: asyncio.Queue[M] = asyncio.Queue()
        sub = await self.watch(cls, queue.put, since=since)
        try:
            yield queue
        finally:
            with contextlib.suppress(NatsError):
                await sub.unsubscribe()

    # ------------------------------------------------------------------ presence

    async def key_value(self, bucket: str, *, ttl_s: float) -> KeyValue:
        """The KV ``bucket``, created (with the streams' replicas) when missing, e.g. on a restarted server.

        Quick requests: a bucket electing a leader answers nothing, and every caller has a fallback.
        """
        js = self.quick_js()
        try:
            return await js.key_value(bucket)
        except BucketNotFoundError:
            return await js.create_key_value(bucket_config(self.settings, bucket, ttl_s=ttl_s))

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


def _security(settings: RuntimeSettings) -> BaseSecurity | None:
    """The identity this process connects as (NATS_USER/NATS_PASSWORD, or a NATS_CREDS file); None: anonymous."""
    if settings.nats_creds:
        return NatsCredentials(settings.nats_creds)
    if settings.nats_user:
        return NatsUserPassword(settings.nats_user, settings.nats_password or "")
    return None


def _key_token(value: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in value)
