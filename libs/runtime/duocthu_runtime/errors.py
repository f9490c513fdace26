"""Failures of the runtime glue (an unreadable message, an unanswered request, a NATS server that will not start),
and the one way an adapter turns a library's errors into its port's error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar


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


class SealKeyError(ValueError):
    """A verdict key that cannot be used: a missing or unreadable key file, not an Ed25519 key, no public key."""


S = TypeVar("S")
P = ParamSpec("P")
T = TypeVar("T")
Method = Callable[Concatenate[S, P], Coroutine[Any, Any, T]]


def translating(errors: tuple[type[BaseException], ...], into: Callable[[S, BaseException], Exception],
                ) -> Callable[[Method[S, P, T]], Method[S, P, T]]:
    """A decorator for an adapter's async methods: a library's ``errors`` leave as the port's own error.

    ``into(adapter, error)`` builds that error; the library's error stays
    chained as its cause, so nothing about the failure is lost.
    """

    def decorate(method: Method[S, P, T]) -> Method[S, P, T]:
        @functools.wraps(method)
        async def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
            try:
                return await method(self, *args, **kwargs)
            except errors as exc:
                raise into(self, exc) from exc

        return call

    return decorate
