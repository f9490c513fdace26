"""Monograph mode asked of a retrieval replica (request/reply): drugs, a drug's sections, a section's text.

Implements :class:`duocthu_gateway.ports.Monographs`; no replica answering
in time is :class:`RetrievalUnavailable`.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from duocthu_contracts.rpc import (
    DrugListReply,
    DrugListRequest,
    IndexStatusReply,
    IndexStatusRequest,
    RpcRequest,
    SectionListReply,
    SectionListRequest,
    SectionTextReply,
    SectionTextRequest,
)
from duocthu_contracts.sections import SectionKey
from duocthu_gateway.errors import RetrievalUnavailable
from duocthu_runtime import Bus, NoReply

TIMEOUT_S = 5.0
R = TypeVar("R", bound=BaseModel)


class MonographClient:
    def __init__(self, bus: Bus, timeout_s: float = TIMEOUT_S) -> None:
        self.bus = bus
        self.timeout_s = timeout_s

    async def drugs(self) -> DrugListReply:
        return await self._ask(DrugListRequest(), DrugListReply)

    async def sections(self, drug_id: str) -> SectionListReply:
        return await self._ask(SectionListRequest(drug_id=drug_id), SectionListReply)

    async def section_text(self, drug_id: str, section_key: SectionKey) -> SectionTextReply:
        return await self._ask(SectionTextRequest(drug_id=drug_id, section_key=section_key), SectionTextReply)

    async def index_status(self) -> IndexStatusReply:
        return await self._ask(IndexStatusRequest(), IndexStatusReply)

    async def _ask(self, request: RpcRequest, reply: type[R]) -> R:
        try:
            return await self.bus.request(request, reply, timeout_s=self.timeout_s)
        except NoReply as exc:
            raise RetrievalUnavailable(f"no retrieval replica answered: {exc}") from exc
