"""Reading stored messages back: following a message type, and a subscriber's catch-up after a failover.

:meth:`Replay.follow` is the one way to read a stored message type from a
point in its stream; :meth:`Replay.stored_since` reads back what a core
subscriber may have missed while its connection failed over.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Literal, TypeVar

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import Error as NatsError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from duocthu_contracts.envelope import Message
from duocthu_runtime.bus.connection import Connection
from duocthu_runtime.bus.subjects import stream_for, subject_for_type
from duocthu_runtime.bus.versioning import decode
from duocthu_runtime.errors import MessageRejected
from duocthu_runtime.observability.logging import get_logger

log = get_logger(__name__)

M = TypeVar("M", bound=Message)

#: Where :meth:`Replay.follow` starts reading: the last stored message, only new ones, or all of them.
Since = Literal["last", "new", "all"]
_DELIVER: dict[Since, DeliverPolicy] = {"last": DeliverPolicy.LAST, "new": DeliverPolicy.NEW,
                                        "all": DeliverPolicy.ALL}


class Replay(Connection):
    """Stored messages read back by this process alone: ephemeral consumers, nothing acked."""

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
