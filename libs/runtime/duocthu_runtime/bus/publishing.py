"""Publishing and requests: the one place that knows how a message goes out.

:meth:`Publishing.publish` knows the rules: the subject follows from the
message type, lane and origin; ``Nats-Msg-Id`` is the message id (JetStream
drops a re-publish); the call returns only after JetStream has stored the
message, so a stage can ack its input knowing its output is durable.
:meth:`Publishing.request` is the one way to call a replica (request/reply,
FastStream encoding the request and the reply model decoding it).
"""

from __future__ import annotations

import asyncio
import time
from typing import TypeVar

from faststream.exceptions import FastStreamException
from nats.errors import ConnectionReconnectingError, NoRespondersError
from nats.errors import Error as NatsError
from nats.js.errors import NoStreamResponseError, ServiceUnavailableError
from pydantic import BaseModel, ValidationError

from duocthu_contracts.envelope import Message
from duocthu_contracts.rpc import RpcRequest
from duocthu_runtime.bus.connection import Connection
from duocthu_runtime.bus.subjects import stream_for, subject_for
from duocthu_runtime.bus.versioning import encode
from duocthu_runtime.errors import NoReply
from duocthu_runtime.observability.logging import get_logger

#: One stored publish waits at most this long for its PubAck before it is sent again (same message id).
PUBLISH_ATTEMPT_S = 2.0
#: The pause between two attempts while a stream has no leader.
PUBLISH_PAUSE_S = 0.25

log = get_logger(__name__)

#: What a stored publish outlives by sending again: every one passes when a stream has a leader again, or when
#: the connection is back (a restarted server: the client is reconnecting or the broker not yet connected).
_TRANSIENT = (NoStreamResponseError, NoRespondersError, ServiceUnavailableError, ConnectionReconnectingError,
              TimeoutError, NatsError, FastStreamException)

R = TypeVar("R", bound=BaseModel)


class Publishing(Connection):
    """Messages out: durable publishes, advisory ones, requests to a replica."""

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
