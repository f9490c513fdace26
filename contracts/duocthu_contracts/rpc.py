"""Request/reply calls answered by a retrieval replica: monograph browsing and index operations.

Core NATS request/reply, each request class naming its ``SUBJECT``.  The
subjects lie deliberately outside ``rag.>``: a subject captured by a stream
would get a JetStream PubAck racing the real reply.  Replies carry an
``error`` instead of failing, so a caller can tell "no such drug" from
"index down".
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from duocthu_contracts.base import Frozen
from duocthu_contracts.corpus import EmbeddingModel, ReleaseManifest
from duocthu_contracts.evidence import Evidence
from duocthu_contracts.sections import SectionKey


class RpcRequest(Frozen):
    """A request to one retrieval replica (a NATS queue group answers it once)."""

    SUBJECT: ClassVar[str] = ""


class DrugListRequest(RpcRequest):
    SUBJECT: ClassVar[str] = "svc.v1.retrieval.drugs"


class DrugSummary(Frozen):
    drug_id: str
    drug_name: str


class DrugListReply(Frozen):
    drugs: list[DrugSummary] = Field(default_factory=list)
    error: str | None = None


class SectionListRequest(RpcRequest):
    SUBJECT: ClassVar[str] = "svc.v1.retrieval.sections"

    drug_id: str


class SectionSummary(Frozen):
    section_key: SectionKey
    section_title: str
    part_count: int
    has_quarantined_content: bool = False


class SectionListReply(Frozen):
    drug_id: str
    drug_name: str = ""
    sections: list[SectionSummary] = Field(default_factory=list)
    error: str | None = None


class SectionTextRequest(RpcRequest):
    SUBJECT: ClassVar[str] = "svc.v1.retrieval.section_text"

    drug_id: str
    section_key: SectionKey


class SectionTextReply(Frozen):
    drug_id: str
    section_key: SectionKey
    drug_name: str = ""
    section_title: str = ""
    text: str = Field(default="", description="the section's parts joined in part order, verbatim")
    parts: list[Evidence] = Field(default_factory=list)
    error: str | None = None


class IndexStatusRequest(RpcRequest):
    SUBJECT: ClassVar[str] = "svc.v1.retrieval.index_status"


class IndexStatusReply(Frozen):
    """What a retrieval replica serves: the live release's manifest and whether it matches its embedder."""

    instance_id: str
    ready: bool
    detail: str = ""
    alias: str = ""
    collection: str | None = None
    manifest: ReleaseManifest | None = None
    point_count: int | None = None
    query_model: EmbeddingModel | None = None
    rebuild_in_progress: str | None = Field(default=None, description="collection being rebuilt, if any")
    indexed_at: str | None = Field(default=None, description="when the live release's manifest was written (ISO 8601)")


class IndexRebuildRequest(RpcRequest):
    SUBJECT: ClassVar[str] = "svc.v1.retrieval.index_rebuild"

    release_id: str | None = Field(default=None, description="default: the live release")


class IndexRebuildReply(Frozen):
    accepted: bool
    release_id: str | None = None
    collection: str | None = Field(default=None, description="the fresh collection the rebuild writes")
    error: str | None = None
