"""Asking a running retrieval replica over the bus: index status, a rebuild, and the releases it announces.

Core-NATS request/reply (:meth:`Bus.request`): one replica of the queue
group answers; ``None`` means no replica is running (or none answered in
time), which the operator use cases turn into "do it in this process".
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager

from duocthu_contracts.messages import CorpusReleaseCompleted
from duocthu_contracts.rpc import IndexRebuildReply, IndexRebuildRequest, IndexStatusReply, IndexStatusRequest
from duocthu_runtime import Bus, NoReply


class ReplicaClient:
    """Implements :class:`duocthu_retrieval.ports.Replicas` over a connected :class:`Bus`."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus

    async def status(self, timeout_s: float = 3.0) -> IndexStatusReply | None:
        try:
            return await self.bus.request(IndexStatusRequest(), IndexStatusReply, timeout_s=timeout_s)
        except NoReply:
            return None

    async def rebuild(self, request: IndexRebuildRequest, timeout_s: float = 10.0) -> IndexRebuildReply | None:
        try:
            return await self.bus.request(request, IndexRebuildReply, timeout_s=timeout_s)
        except NoReply:
            return None

    def completions(self) -> AbstractAsyncContextManager[asyncio.Queue[CorpusReleaseCompleted]]:
        """Release completions announced from now on (enter it *before* triggering the work)."""
        return self.bus.follow(CorpusReleaseCompleted, since="new")
