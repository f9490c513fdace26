"""The NATS permission table: one identity per service, plus the operator.

Least privilege (issue 21): each stage publishes and subscribes only its own
subjects, reads only its own durable consumers, and can neither read the audit
stream (``RAG_AUDIT``) nor publish an ingest job; only the gateway publishes
ingest jobs (its admin endpoint checks the admin token first); only the
``ops`` identity (the CLI: audit, ingest, index) may do anything else.  The
one read of the audit stream a service is granted is the gateway's catch-up:
the completions it may already hear on its core subscription, read back after
a reconnection (``catches_up``), through a consumer pinned to that subject.

Everything here is data derived from the contract classes, so a renamed
subject moves the permission with it; :mod:`.server_config` turns it into
nats-server syntax and ``tests/platform/test_nats_access_table.py`` checks it
against the AsyncAPI document.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_contracts import subjects as s
from duocthu_contracts.envelope import Lane, Message, TurnMessage
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerRejected,
    CorpusBatchEmbedded,
    CorpusReleaseCompleted,
    EvidenceRetrieved,
    IngestJobProgress,
    IngestJobRequested,
    IngestJobResult,
    TurnCompleted,
    TurnProgress,
    TurnRequested,
    TurnUnderstood,
)
from duocthu_contracts.rpc import (
    DrugListRequest,
    IndexRebuildRequest,
    IndexStatusRequest,
    SectionListRequest,
    SectionTextRequest,
)
from duocthu_runtime.bus.presence import PRESENCE_BUCKET
from duocthu_runtime.bus.subjects import durable_name, lane_subject, stream_for, subject_for_type
from duocthu_runtime.settings import inbox_prefix_for

#: The gateway's rate-limit bucket (``duocthu_gateway.adapters.ratelimit.BUCKET``; a service is not imported here).
RATE_BUCKET = "gateway_rate"

#: Every stream a process declares at start-up (:func:`duocthu_runtime.bus.streams.ensure_streams`).
DECLARED_STREAMS = (s.AUDIT_STREAM, s.AUDIT_REDACTED_STREAM, s.SHADOW_STREAM, s.INGEST_STREAM, s.CORPUS_STREAM)

OPS = "ops"


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
    create subject pins the filter to that subject, never a stage's durable.
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
                out.append(Consumer(stream_for(subject), durable_name(self.service or self.user, cls, lane), subject))
        return tuple(out)

    def consumed_subjects(self) -> tuple[str, ...]:
        """The live subjects this identity reads (durable consumers and core subscriptions)."""
        return tuple(_addressed(cls) for cls in self.consumes) + self.subscribes


def _addressed(cls: type[Message]) -> str:
    """The subject ``cls`` is published on: an addressed message ends with the origin token (``*``)."""
    return f"{cls.SUBJECT}.*" if cls.ADDRESSED else cls.SUBJECT


_TURN_END = (_addressed(TurnCompleted), _addressed(TurnProgress))

IDENTITIES: tuple[Identity, ...] = (
    Identity(
        user="gateway", service="gateway",
        publishes=(TurnRequested.SUBJECT, IngestJobRequested.SUBJECT,
                   DrugListRequest.SUBJECT, SectionListRequest.SUBJECT, SectionTextRequest.SUBJECT,
                   IndexStatusRequest.SUBJECT),  # the live release shown on the web page
        subscribes=(*_TURN_END, IngestJobProgress.SUBJECT),  # the admin page's view of running ingest jobs
        buckets=(PRESENCE_BUCKET, RATE_BUCKET),
        catches_up=(_addressed(TurnCompleted),),  # a completion stored while its connection failed over
    ),
    Identity(
        user="understanding", service="understanding",
        publishes=(TurnUnderstood.SUBJECT, *_TURN_END),
        consumes=(TurnRequested,),
        follows=(s.CORPUS_STREAM,),
    ),
    Identity(
        user="retrieval", service="retrieval",
        publishes=(EvidenceRetrieved.SUBJECT, *_TURN_END, CorpusReleaseCompleted.SUBJECT),
        subscribes=(DrugListRequest.SUBJECT, SectionListRequest.SUBJECT, SectionTextRequest.SUBJECT,
                    IndexStatusRequest.SUBJECT, IndexRebuildRequest.SUBJECT),
        consumes=(TurnUnderstood, CorpusBatchEmbedded),
        follows=(s.CORPUS_STREAM,),
        answers=True,
    ),
    Identity(
        user="generation", service="generation",
        publishes=(AnswerDrafted.SUBJECT, *_TURN_END),
        consumes=(EvidenceRetrieved, AnswerRejected),
    ),
    Identity(
        user="verifier", service="verifier",
        publishes=(AnswerRejected.SUBJECT, *_TURN_END),
        consumes=(AnswerDrafted,),
        follows=(s.CORPUS_STREAM,),
    ),
    Identity(
        user="ingest", service="ingest-worker",
        publishes=(CorpusBatchEmbedded.SUBJECT, IngestJobResult.SUBJECT, IngestJobProgress.SUBJECT),
        consumes=(IngestJobRequested,),
    ),
    # The operator (CLI: audit show/reverify/replay/export/redact, ingest, index): reads the audit stream,
    # replays into the shadow lane, redacts, rebuilds the index; never started as a service.
    Identity(user=OPS, service=None, admin=True),
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
