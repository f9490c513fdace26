"""``GET /v1/rag/release``: which release of the book answers right now (the web page's header shows it).

Asked of a retrieval replica (index status and drug list over request/reply),
so the page names the release that retrieval actually serves, not one the
gateway remembers.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from duocthu_gateway.entrypoints.deps import GatewayDep
from duocthu_gateway.entrypoints.errors import documented, error_response

router = APIRouter()


class LiveRelease(BaseModel):
    release_id: str = Field(description="the live release's id")
    drug_count: int = Field(ge=0, description="monographs in the release")
    chunk_count: int = Field(ge=0, description="indexed chunks")
    built_at: str | None = Field(default=None, description="when the release's index was completed (ISO 8601)")


@router.get("/v1/rag/release", response_model=LiveRelease,
            responses=documented(503))
async def live_release(request: Request, gateway: GatewayDep) -> JSONResponse:
    status = await gateway.monographs.index_status()
    if status.manifest is None:
        return error_response(request, 503, "no_live_release", status.detail or "no live release")
    drugs = await gateway.monographs.drugs()
    release = LiveRelease(release_id=status.manifest.release_id, drug_count=len(drugs.drugs),
                          chunk_count=status.manifest.chunk_count, built_at=status.indexed_at)
    return JSONResponse(release.model_dump(mode="json"), headers={"Cache-Control": "no-store"})
