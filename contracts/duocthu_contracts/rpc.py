"""Request/reply payloads for monograph browsing (served by retrieval)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from duocthu_contracts.corpus import EmbeddingModel, ReleaseManifest
from duocthu_contracts.evidence import Evidence
from duocthu_contracts.sections import SectionKey


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class DrugListRequest(_Frozen):
    pass


class DrugSummary(_Frozen):
    drug_id: str
    drug_name: str


class DrugListReply(_Frozen):
    drugs: list[DrugSummary] = Field(default_factory=list)
    error: str | None = None


class SectionListRequest(_Frozen):
    drug_id: str


class SectionSummary(_Frozen):
    section_key: SectionKey
    section_title: str
    part_count: int
    has_quarantined_content: bool = False


class SectionListReply(_Frozen):
    drug_id: str
    drug_name: str = ""
    sections: list[SectionSummary] = Field(default_factory=list)
    error: str | None = None


class SectionTextRequest(_Frozen):
    drug_id: str
    section_key: SectionKey


class SectionTextReply(_Frozen):
    drug_id: str
    section_key: SectionKey
    drug_name: str = ""
    section_title: str = ""
    text: str = Field(default="", description="the section's parts joined in part order, verbatim")
    parts: list[Evidence] = Field(default_factory=list)
    error: str | None = None


class IndexStatusRequest(_Frozen):
    pass


class IndexStatusReply(_Frozen):
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


class IndexRebuildRequest(_Frozen):
    release_id: str | None = Field(default=None, description="default: the live release")


class IndexRebuildReply(_Frozen):
    accepted: bool
    release_id: str | None = None
    collection: str | None = Field(default=None, description="the fresh collection the rebuild writes")
    error: str | None = None
