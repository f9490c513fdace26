"""Which subject a message goes to, given its lane and origin: ``SUBJECT`` on its class, and for an addressed
message (the topology table says which) the origin token of the gateway replica it goes to."""

from __future__ import annotations

from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Lane, Message, TurnMessage
from duocthu_contracts.rpc import RpcRequest
from duocthu_runtime.bus.topology import durable_name, is_addressed

__all__ = ["addressed_subject", "durable_name", "lane_subject", "origin_token", "stream_for", "subject_for",
           "subject_for_type", "wildcard_subject"]


def lane_subject(base: str, lane: Lane) -> str:
    return f"{s.SHADOW_PREFIX}{base}" if lane is Lane.SHADOW else base


def subject_for(message: Message) -> str:
    base = type(message).SUBJECT
    if isinstance(message, TurnMessage):
        if is_addressed(type(message)):
            base = f"{base}.{origin_token(message.origin)}"
        return lane_subject(base, message.lane)
    return base


def subject_for_type(cls: type[Message], lane: Lane = Lane.LIVE) -> str:
    """The subject a consumer of ``cls`` listens on (for an addressed message: every origin's)."""
    return lane_subject(cls.SUBJECT, lane)


def addressed_subject(cls: type[Message], origin: str, lane: Lane = Lane.LIVE) -> str:
    """The subject of ``cls`` messages addressed to the gateway replica ``origin``."""
    return lane_subject(f"{cls.SUBJECT}.{origin_token(origin)}", lane)


def wildcard_subject(cls: type[Message] | type[RpcRequest], wildcard: str = "*") -> str:
    """Every subject ``cls`` is published on: an addressed message's ends with ``wildcard`` for the origin
    (``*`` for a NATS grant or subscription, ``{origin}`` for the AsyncAPI parameter)."""
    return f"{cls.SUBJECT}.{wildcard}" if is_addressed(cls) else cls.SUBJECT


def origin_token(origin: str) -> str:
    """An origin as a single subject token (NATS tokens cannot hold '.', '*', '>' or spaces)."""
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in origin)


def stream_for(subject: str) -> str:
    if subject.startswith(s.SHADOW_PREFIX):
        return s.SHADOW_STREAM
    if subject.startswith("rag."):
        return s.AUDIT_STREAM
    if subject.startswith("ingest."):
        return s.INGEST_STREAM
    if subject.startswith("corpus."):
        return s.CORPUS_STREAM
    raise ValueError(f"subject {subject!r} is not captured by any stream")
