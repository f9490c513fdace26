"""Monograph mode and crops: ``/v1/rag/drugs``, ``/v1/rag/sections``, ``/v1/rag/section-text``, ``/v1/rag/crop``.

Monograph text comes from a retrieval replica over NATS request/reply (the
only process that opens the index); errors carry their reason, never masked.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from duocthu_contracts.rpc import DrugListReply, SectionListReply, SectionTextReply
from duocthu_contracts.sections import SectionKey
from duocthu_gateway.entrypoints.deps import GatewayDep
from duocthu_gateway.entrypoints.errors import documented, error_response
from duocthu_gateway.errors import CropError

router = APIRouter()
DRUG_ID = r"^[a-z0-9_]{1,80}$"


def _reply(request: Request, reply: DrugListReply | SectionListReply | SectionTextReply) -> JSONResponse:
    if reply.error:
        status = 404 if reply.error.startswith("no ") else 503
        return error_response(request, status, "not_found" if status == 404 else "retrieval_unavailable",
                              reply.error)
    return JSONResponse(reply.model_dump(mode="json"))


@router.get("/v1/rag/drugs", responses=documented(503))
async def drugs(request: Request, gateway: GatewayDep) -> JSONResponse:
    return _reply(request, await gateway.monographs.drugs())


@router.get("/v1/rag/sections", responses=documented(404, 422, 503))
async def sections(request: Request, gateway: GatewayDep,
                   drug_id: Annotated[str, Query(pattern=DRUG_ID)]) -> JSONResponse:
    return _reply(request, await gateway.monographs.sections(drug_id))


@router.get("/v1/rag/section-text", responses=documented(404, 422, 503))
async def section_text(request: Request, gateway: GatewayDep, drug_id: Annotated[str, Query(pattern=DRUG_ID)],
                       section_key: SectionKey) -> JSONResponse:
    return _reply(request, await gateway.monographs.section_text(drug_id, section_key))


@router.get("/v1/rag/crop", response_model=None, responses={
    200: {"content": {"image/png": {}}, "description": "The region as a PNG"}, **documented(404, 422)})
async def crop(request: Request, gateway: GatewayDep, *, page: Annotated[int, Query(ge=0)], x0: float, y0: float,
               x1: float, y1: float) -> Response:
    try:
        png, cached = gateway.crops.render(page, (x0, y0, x1, y1))
    except CropError as exc:
        return error_response(request, 404 if "not found" in str(exc) else 422, "bad_region", str(exc))
    return Response(png, media_type="image/png",
                    headers={"Cache-Control": "public, max-age=86400", "X-Crop-Cache": "hit" if cached else "miss"})
