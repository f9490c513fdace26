"""Thin handlers: a bus message (or request) in, an index-service call, messages (or a reply) out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from faststream.nats import NatsMessage
from pydantic import ValidationError

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import CorpusBatchEmbedded
from duocthu_contracts.rpc import IndexRebuildRequest, SectionListReply, SectionListRequest, SectionTextRequest
from duocthu_retrieval import browse
from duocthu_retrieval.index_service import IndexService
from duocthu_runtime.bus.stage import Handler, StageContext


def batch_handler(service: IndexService) -> Handler[CorpusBatchEmbedded]:
    async def handle_batch(message: CorpusBatchEmbedded, ctx: StageContext[CorpusBatchEmbedded]) -> Sequence[Message]:
        return await service.apply(message)

    return handle_batch


def status_handler(service: IndexService) -> Callable[[NatsMessage], Awaitable[bytes]]:
    async def index_status(msg: NatsMessage) -> bytes:
        return (await service.status()).model_dump_json().encode()

    return index_status


def rebuild_handler(service: IndexService) -> Callable[[NatsMessage], Awaitable[bytes]]:
    async def index_rebuild(msg: NatsMessage) -> bytes:
        request = IndexRebuildRequest.model_validate_json(msg.body or b"{}")
        return (await service.request_rebuild(request)).model_dump_json().encode()

    return index_rebuild


def drugs_handler(service: IndexService) -> Callable[[NatsMessage], Awaitable[bytes]]:
    async def drugs(msg: NatsMessage) -> bytes:
        return (await browse.list_drugs(service.index)).model_dump_json().encode()

    return drugs


def sections_handler(service: IndexService) -> Callable[[NatsMessage], Awaitable[bytes]]:
    async def sections(msg: NatsMessage) -> bytes:
        try:
            request = SectionListRequest.model_validate_json(msg.body or b"{}")
        except ValidationError as exc:
            return SectionListReply(drug_id="", error=f"bad request: {exc.errors()[0]['msg']}").model_dump_json().encode()
        return (await browse.list_sections(service.index, request)).model_dump_json().encode()

    return sections


def section_text_handler(service: IndexService) -> Callable[[NatsMessage], Awaitable[bytes]]:
    async def section_text(msg: NatsMessage) -> bytes:
        request = SectionTextRequest.model_validate_json(msg.body or b"{}")
        return (await browse.section_text(service.index, request)).model_dump_json().encode()

    return section_text
