"""Which subject a message goes to, given its lane and origin: derived from ``SUBJECT`` on its class."""

from __future__ import annotations

from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Lane, Message, TurnMessage


def lane_subject(base: str, lane: Lane) -> str:
    return f"{s.SHADOW_PREFIX}{base}" if lane is Lane.SHADOW else base


def subject_for(message: Message) -> str:
    base = type(message).SUBJECT
    if isinstance(message, TurnMessage):
        if message.ADDRESSED:
            base = f"{base}.{origin_token(message.origin)}"
        return lane_subject(base, message.lane)
    return base


def subject_for_type(cls: type[Message], lane: Lane = Lane.LIVE) -> str:
    """The subject a consumer of ``cls`` listens on (for an addressed message: every origin's)."""
    return lane_subject(cls.SUBJECT, lane)


def addressed_subject(cls: type[Message], origin: str, lane: Lane = Lane.LIVE) -> str:
    """The subject of ``cls`` messages addressed to the gateway replica ``origin``."""
    return lane_subject(f"{cls.SUBJECT}.{origin_token(origin)}", lane)


def durable_name(stage: str, cls: type[Message], lane: Lane = Lane.LIVE) -> str:
    """The durable consumer ``stage`` reads ``cls`` with (one per lane, shared by the stage's replicas).

    A pure function of the stage and the message type, because the NATS
    permission table (:mod:`duocthu_runtime.access`) must name each stage's
    consumers exactly: a stage may read its own consumers only.
    """
    short = cls.SCHEMA.split("/")[0].replace(".", "_")
    suffix = "_shadow" if lane is Lane.SHADOW else ""
    return f"{stage}__{short}{suffix}"


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
