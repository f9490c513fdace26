"""The message topology, written once: who publishes each message, who reads it, and how.  Data only.

Every other statement of the topology is derived from this table
(``duocthu_runtime.bus.topology`` holds the lookups):

* the stage specs: a service's ``stage.consumes(cls, ...)`` takes its durable
  consumer's name from here and is refused for a message the table does not
  give it (``tests/contracts/test_topology.py`` builds every service's spec
  and compares);
* the NATS permission table (``duocthu_runtime.access.table``): what each
  identity may publish, subscribe to, consume, follow and answer;
* the AsyncAPI document (``duocthu contracts export``);
* the in-process pipeline of ``duocthu bench query`` (which stage handles a
  message next);
* the subject of an addressed message (it ends with the origin token of the
  gateway replica that holds the HTTP request).

Identities are NATS users (``duocthu_runtime.access.table.IDENTITIES`` maps
each service to its user: ``ingest-worker`` connects as ``ingest``).  The
operator (``ops``) may publish anything except an ``exclusive`` subject, so it
is named here only where it is an intended producer.

How to add a message: docs/architecture.md, "Where to add".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from duocthu_contracts.envelope import Message
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
    TurnVerified,
)
from duocthu_contracts.rpc import (
    DrugListRequest,
    IndexRebuildRequest,
    IndexStatusRequest,
    RpcRequest,
    SectionListRequest,
    SectionTextRequest,
)

GATEWAY = "gateway"
UNDERSTANDING = "understanding"
RETRIEVAL = "retrieval"
GENERATION = "generation"
VERIFIER = "verifier"
INGEST = "ingest"
OPS = "ops"

#: The stages that may end a turn themselves (``clarify`` or ``abstain``, code-owned wording).
TURN_STAGES = (UNDERSTANDING, RETRIEVAL, GENERATION, VERIFIER)

#: Each service and the NATS identity it connects as (the operator is no service).
SERVICE_IDENTITIES: dict[str, str] = {
    "gateway": GATEWAY,
    "understanding": UNDERSTANDING,
    "retrieval": RETRIEVAL,
    "generation": GENERATION,
    "verifier": VERIFIER,
    "ingest-worker": INGEST,
}


class Reading(StrEnum):
    """How a reader receives a message."""

    DURABLE = "durable"  #: a durable pull consumer shared by the identity's replicas (each message handled once)
    SUBSCRIPTION = "subscription"  #: a core subscription: an addressed reply, or an advisory status line
    FOLLOW = "follow"  #: an ordered consumer over the stream: state every replica keeps (the live release)
    REQUEST = "request"  #: request/reply, answered by one replica of the identity's queue group


@dataclass(frozen=True)
class Reader:
    identity: str
    reading: Reading
    #: DURABLE only: the consumer's name (its shadow-lane twin adds ``_shadow``); deployed, so never renamed.
    durable: str | None = None
    #: SUBSCRIPTION only: also read back from the stream after a reconnection (what a failover made it miss).
    catch_up: bool = False


@dataclass(frozen=True)
class Flow:
    """One message: its producers, its readers, and whether it is addressed to one gateway replica."""

    message: type[Message] | type[RpcRequest]
    producers: tuple[str, ...]
    readers: tuple[Reader, ...]
    #: the subject ends with the origin token of the gateway replica that holds the HTTP request
    addressed: bool = False
    #: only ``producers`` may publish it, the operator included (an answer: the verifier's alone)
    exclusive: bool = False


TOPOLOGY: tuple[Flow, ...] = (
    # ---------------------------------------------------------------- one turn
    Flow(TurnRequested, (GATEWAY,),
         (Reader(UNDERSTANDING, Reading.DURABLE, "understanding__rag_turn_requested"),)),
    Flow(TurnUnderstood, (UNDERSTANDING,),
         (Reader(RETRIEVAL, Reading.DURABLE, "retrieval__rag_turn_understood"),)),
    Flow(EvidenceRetrieved, (RETRIEVAL,),
         (Reader(GENERATION, Reading.DURABLE, "generation__rag_evidence_retrieved"),)),
    Flow(AnswerDrafted, (GENERATION,),
         (Reader(VERIFIER, Reading.DURABLE, "verifier__rag_answer_drafted"),)),
    Flow(AnswerRejected, (VERIFIER,),
         (Reader(GENERATION, Reading.DURABLE, "generation__rag_answer_rejected"),)),
    # a turn's end by any stage: clarify or abstain only (the gateway refuses anything else from here)
    Flow(TurnCompleted, TURN_STAGES,
         (Reader(GATEWAY, Reading.SUBSCRIPTION, catch_up=True),), addressed=True),
    # a turn's end by the verifier, sealed: the only way an answer or a verify_pdf reaches a user
    Flow(TurnVerified, (VERIFIER,),
         (Reader(GATEWAY, Reading.SUBSCRIPTION, catch_up=True),), addressed=True, exclusive=True),
    Flow(TurnProgress, TURN_STAGES,
         (Reader(GATEWAY, Reading.SUBSCRIPTION),), addressed=True),
    # ---------------------------------------------------------------- ingestion and the corpus
    Flow(IngestJobRequested, (GATEWAY, OPS),
         (Reader(INGEST, Reading.DURABLE, "ingest-worker__ingest_job_requested"),)),
    Flow(IngestJobProgress, (INGEST,),
         (Reader(GATEWAY, Reading.SUBSCRIPTION), Reader(OPS, Reading.SUBSCRIPTION))),
    Flow(IngestJobResult, (INGEST,),
         (Reader(OPS, Reading.FOLLOW),)),
    Flow(CorpusBatchEmbedded, (INGEST,),
         (Reader(RETRIEVAL, Reading.DURABLE, "retrieval__corpus_batch_embedded"),
          Reader(RETRIEVAL, Reading.FOLLOW),  # a rebuild reads the release's batches back
          Reader(VERIFIER, Reading.FOLLOW))),  # the live release's term statistics
    Flow(CorpusReleaseCompleted, (RETRIEVAL,),
         (Reader(UNDERSTANDING, Reading.FOLLOW),  # the drug catalog
          Reader(RETRIEVAL, Reading.FOLLOW),  # the other replicas switch to the new release
          Reader(VERIFIER, Reading.FOLLOW),
          Reader(OPS, Reading.FOLLOW))),
    # ---------------------------------------------------------------- requests answered by a retrieval replica
    Flow(DrugListRequest, (GATEWAY, OPS), (Reader(RETRIEVAL, Reading.REQUEST),)),
    Flow(SectionListRequest, (GATEWAY, OPS), (Reader(RETRIEVAL, Reading.REQUEST),)),
    Flow(SectionTextRequest, (GATEWAY, OPS), (Reader(RETRIEVAL, Reading.REQUEST),)),
    Flow(IndexStatusRequest, (GATEWAY, OPS), (Reader(RETRIEVAL, Reading.REQUEST),)),
    Flow(IndexRebuildRequest, (OPS,), (Reader(RETRIEVAL, Reading.REQUEST),)),
)
