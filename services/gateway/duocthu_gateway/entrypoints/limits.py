"""HTTP input limits at the server: a body must arrive within ``BODY_TIMEOUT_S`` and fit in ``MAX_BODY_BYTES``.

Without them a client that declares a ``Content-Length`` larger than what it
sends holds a connection (and a task) open until the peer gives up, and a
huge body is read whole into memory. The middleware reads the body first,
with a deadline for the whole of it and a running size count, then replays
it to the app: 408 when it did not arrive in time, 413 when it is too large
(at once, from the declared length, or as soon as the count passes it).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from duocthu_contracts.http import ErrorResponse
from duocthu_gateway.entrypoints.errors import CORRELATION_RE
from duocthu_runtime import new_id

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOO_SLOW = "Nội dung yêu cầu không đến kịp trong {timeout:g} giây; hãy gửi lại."
TOO_LARGE = "Nội dung yêu cầu quá lớn (tối đa {limit} byte)."


class _Refused(Exception):
    def __init__(self, status: int, error: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail


class BodyLimits:
    def __init__(self, app: ASGIApp, *, timeout_s: float, max_bytes: int) -> None:
        self.app = app
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            chunks = await self._read(scope, receive)
        except _Refused as refused:
            await self._refuse(scope, send, refused)
            return
        replay = iter(chunks)

        async def replayed() -> Message:
            chunk = next(replay, None)
            return chunk if chunk is not None else await receive()  # then the disconnect, when it comes

        await self.app(scope, replayed, send)

    async def _read(self, scope: Scope, receive: Receive) -> list[Message]:
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is None and b"chunked" not in headers.get(b"transfer-encoding", b""):
            return []  # no body announced: nothing to wait for
        if declared is not None and declared.strip().isdigit() and int(declared) > self.max_bytes:
            raise _Refused(413, "payload_too_large", TOO_LARGE.format(limit=self.max_bytes))
        chunks: list[Message] = []
        size = 0
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                raise _Refused(408, "request_timeout", TOO_SLOW.format(timeout=self.timeout_s)) from None
            chunks.append(message)
            if message["type"] != "http.request":
                return chunks  # the client went away; the app sees the disconnect
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                raise _Refused(413, "payload_too_large", TOO_LARGE.format(limit=self.max_bytes))
            if not message.get("more_body", False):
                return chunks

    async def _refuse(self, scope: Scope, send: Send, refused: _Refused) -> None:
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"x-correlation-id", b"").decode("latin-1")
        trace = given if CORRELATION_RE.match(given) else new_id()
        body = json.dumps(ErrorResponse(error=refused.error, detail=refused.detail, trace_id=trace)
                          .model_dump(mode="json"), ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": refused.status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"x-trace-id", trace.encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
