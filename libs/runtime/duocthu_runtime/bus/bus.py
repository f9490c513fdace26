"""The bus a process uses: one connection, with publishing, replay, KV buckets and presence on it."""

from __future__ import annotations

from duocthu_runtime.bus.presence import Presence
from duocthu_runtime.bus.publishing import Publishing
from duocthu_runtime.bus.replay import Replay


class Bus(Publishing, Replay, Presence):
    """One NATS connection per process (:class:`~duocthu_runtime.bus.connection.Connection`) and everything done on
    it; each responsibility is a base class in a module of its own."""
