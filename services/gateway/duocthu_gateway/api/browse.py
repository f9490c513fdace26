"""Monograph mode and crops: ``/v1/rag/drugs``, ``/v1/rag/sections``, ``/v1/rag/section-text``, ``/v1/rag/crop``.

Monograph text comes from a retrieval replica over NATS request/reply (the
only process that opens the index); errors carry their reason, never masked.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from duocthu_contracts.rpc import (
    DrugListReply,
    DrugListRequest,
    RpcRequest,
    SectionListReply,
    SectionListRequest,
    SectionTextReply,
    SectionTextRequest,
)
from duocthu_contracts.sections import SectionKey
from duocthu_gateway.adapters.crops import CropError, CropRenderer
from duocthu_gateway.api.errors import error_response
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.errors import NoReply
from duocthu_runtime.observability.logging import get_logger

log = get_logger(__name__)
router = APIRouter()
DRUG_ID = r"^[a-z0-9_]{1,80}$"


async def _ask(request: Request, body: RpcRequest,
               model: type[DrugListReply | SectionListReply | SectionTextReply]) -> JSONResponse:
    bus: Bus = request.app.state.gateway.bus
    try:
        reply = await bus.request(body, model, timeout_s=5.0)
    except NoReply as exc:
        log.warning("retrieval_no_reply", error=str(exc))
        return error_response(request, 503, "retrieval_unavailable", f"no retrieval replica answered: {exc}")
    if reply.error:
        status = 404 if reply.error.startswith("no ") else 503
        return error_response(request, status, "not_found" if status == 404 else "retrieval_unavailable",
                              reply.error)
    return JSONResponse(reply.model_dump(mode="json"))


@router.get("/v1/rag/drugs")
async def drugs(request: Request) -> JSONResponse:
    return await _ask(request, DrugListRequest(), DrugListReply)


@router.get("/v1/rag/sections")
async def sections(request: Request, drug_id: Annotated[str, Query(pattern=DRUG_ID)]) -> JSONResponse:
    return await _ask(request, SectionListRequest(drug_id=drug_id), SectionListReply)


@router.get("/v1/rag/section-text")
async def section_text(request: Request, drug_id: Annotated[str, Query(pattern=DRUG_ID)],
                       section_key: SectionKey) -> JSONResponse:
    body = SectionTextRequest(drug_id=drug_id, section_key=section_key)
    return await _ask(request, body, SectionTextReply)


@router.get("/v1/rag/crop", response_model=None)
async def crop(request: Request, *, page: Annotated[int, Query(ge=0)], x0: float, y0: float, x1: float,
               y1: float) -> Response:
    renderer: CropRenderer = request.app.state.crops
    try:
        png, cached = renderer.render(page, (x0, y0, x1, y1))
    except CropError as exc:
        return error_response(request, 404 if "not found" in str(exc) else 422, "bad_region", str(exc))
    return Response(png, media_type="image/png",
                    headers={"Cache-Control": "public, max-age=86400", "X-Crop-Cache": "hit" if cached else "miss"})
