"""Failures of the runtime glue: an unreadable message, an unanswered request, a NATS server that will not start."""

from __future__ import annotations


class MessageRejected(Exception):
    """A message that this consumer cannot accept; ``reason`` is a metric label."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class NoReply(Exception):
    """No replica answered a request in time (none running, or all busy), or its reply was unreadable."""


class NatsServerError(RuntimeError):
    """The NATS server binary is missing or did not become ready."""
