"""The NATS permission table: one identity per service, plus the operator.

Least privilege (issue 21): each stage publishes and subscribes only its own
subjects, reads only its own durable consumers, and can neither read the audit
stream (``RAG_AUDIT``) nor publish an ingest job; only the gateway publishes
ingest jobs (its admin endpoint checks the admin token first); only the
verifier publishes sealed turn ends (``rag.v1.turn.verified.*``: not even the
operator may); only the ``ops`` identity (the CLI: audit, ingest, index) may do
anything else.  The one read of the audit stream a service is granted is the
gateway's catch-up: the completions it may already hear on its core
subscription, read back after a reconnection (``catches_up``), through a
consumer pinned to that subject.

What each identity publishes, subscribes to, consumes, follows and answers is
derived from the one topology table (:mod:`duocthu_contracts.topology`), so a
message added or re-routed there moves the permission with it; what is left
here is what the topology does not say (KV buckets, the operator's
admin grant).  :mod:`.server_config` turns it into nats-server syntax and
``tests/platform/test_nats_access_table.py`` checks it against the AsyncAPI
document.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_contracts import subjects as s
from duocthu_contracts import topology as t
from duocthu_contracts.envelope import Lane, Message, TurnMessage
from duocthu_contracts.topology import Reading
from duocthu_runtime.bus.subjects import lane_subject, stream_for, subject_for_type, wildcard_subject
from duocthu_runtime.bus.topology import durable_name, produced_by, readers_of
from duocthu_runtime.settings import inbox_prefix_for

PRESENCE_BUCKET = s.PRESENCE_BUCKET
RATE_BUCKET = s.RATE_LIMIT_BUCKET

#: Every stream a process declares at start-up (:func:`duocthu_runtime.bus.streams.ensure_streams`).
DECLARED_STREAMS = (s.AUDIT_STREAM, s.AUDIT_REDACTED_STREAM, s.SHADOW_STREAM, s.INGEST_STREAM, s.CORPUS_STREAM)

OPS = t.OPS


@dataclass(frozen=True)
class Consumer:
    """A durable pull consumer an identity owns: it may create, inspect, fetch from and ack it, nothing else."""

    stream: str
    durable: str
    filter_subject: str


@dataclass(frozen=True)
class Identity:
    """One NATS user and what it may do.

    ``publishes``/``subscribes`` are message subjects (``*`` stands for the
    gateway replica's origin token); ``consumes`` are the message types read
    through durable consumers; ``follows`` are streams read with ephemeral
    ordered consumers (state every replica needs, e.g. the live release);
    ``answers`` means it replies to requests (``allow_responses``);
    ``catches_up`` are subjects of ``subscribes`` it may also read back from
    their stream (messages a failover made it miss), through consumers whose
    create subject pins the filter to that subject, never a stage's durable;
    ``denies`` are subjects an admin identity may still not publish.
    """

    user: str
    service: str | None
    publishes: tuple[str, ...] = ()
    subscribes: tuple[str, ...] = ()
    consumes: tuple[type[Message], ...] = ()
    follows: tuple[str, ...] = ()
    buckets: tuple[str, ...] = (PRESENCE_BUCKET,)
    catches_up: tuple[str, ...] = ()
    answers: bool = False
    admin: bool = False
    denies: tuple[str, ...] = ()

    @property
    def inbox_prefix(self) -> str:
        """Replies to this identity arrive under its own prefix, so no other identity can read them."""
        return inbox_prefix_for(self.user)

    @property
    def lanes(self) -> tuple[Lane, ...]:
        """A pipeline stage also runs the shadow lane (audit replays); other identities the live lane only."""
        return (Lane.LIVE, Lane.SHADOW) if any(issubclass(c, TurnMessage) for c in self.consumes) else (Lane.LIVE,)

    def consumers(self) -> tuple[Consumer, ...]:
        out: list[Consumer] = []
        for cls in self.consumes:
            for lane in self.lanes if issubclass(cls, TurnMessage) else (Lane.LIVE,):
                subject = subject_for_type(cls, lane)
                out.append(Consumer(stream_for(subject), durable_name(self.user, cls, lane), subject))
        return tuple(out)

    def consumed_subjects(self) -> tuple[str, ...]:
        """The live subjects this identity reads (durable consumers and core subscriptions)."""
        return tuple(wildcard_subject(cls) for cls in self.consumes) + self.subscribes


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def derived(user: str, *, buckets: tuple[str, ...] = (PRESENCE_BUCKET,)) -> Identity:
    """An identity's grants as the topology table gives them (plus the buckets, which it does not)."""
    subscribed = readers_of(user, Reading.SUBSCRIPTION)
    consumed: list[type[Message]] = []
    for flow, _ in readers_of(user, Reading.DURABLE):
        if issubclass(flow.message, Message) and flow.message not in consumed:
            consumed.append(flow.message)
    return Identity(
        user=user,
        service=next((name for name, who in t.SERVICE_IDENTITIES.items() if who == user), None),
        publishes=_unique([wildcard_subject(f.message) for f in produced_by(user)]),
        subscribes=_unique([wildcard_subject(f.message) for f, _ in subscribed]
                           + [f.message.SUBJECT for f, _ in readers_of(user, Reading.REQUEST)]),
        consumes=tuple(consumed),
        follows=_unique([stream_for(f.message.SUBJECT) for f, _ in readers_of(user, Reading.FOLLOW)]),
        buckets=buckets,
        catches_up=_unique([wildcard_subject(f.message) for f, r in subscribed if r.catch_up]),
        answers=bool(readers_of(user, Reading.REQUEST)),
    )


def _exclusive_to_others(user: str) -> tuple[str, ...]:
    """The live subjects only other identities may publish (an admin's grant of ``>`` stops short of them)."""
    return _unique([wildcard_subject(f.message) for f in t.TOPOLOGY if f.exclusive and user not in f.producers])


IDENTITIES: tuple[Identity, ...] = (
    derived(t.GATEWAY, buckets=(PRESENCE_BUCKET, RATE_BUCKET)),
    derived(t.UNDERSTANDING),
    derived(t.RETRIEVAL),
    derived(t.GENERATION),
    derived(t.VERIFIER),
    derived(t.INGEST),
    # The operator (CLI: audit show/reverify/replay/export/redact, ingest, index): reads the audit stream,
    # replays into the shadow lane, redacts, rebuilds the index; never started as a service, and never the
    # verifier (it cannot publish a sealed turn end, with or without a seal).
    Identity(user=OPS, service=None, admin=True, denies=_exclusive_to_others(OPS)),
)


def identity(user: str) -> Identity:
    for entry in IDENTITIES:
        if entry.user == user:
            return entry
    raise KeyError(user)


def identity_of_service(service: str) -> Identity:
    for entry in IDENTITIES:
        if entry.service == service:
            return entry
    raise KeyError(service)


def shadow(subject: str) -> str:
    """The shadow-lane twin of a turn subject (audit replays run the same chain under ``shadow.``)."""
    return lane_subject(subject, Lane.SHADOW)
