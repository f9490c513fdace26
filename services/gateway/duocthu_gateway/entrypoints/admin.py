"""Admin endpoints, behind ``Authorization: Bearer $ADMIN_TOKEN`` (no token configured: always refused)."""

from __future__ import annotations

import hmac
import uuid
from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from duocthu_contracts.messages import IngestJobRequested, IngestJobRequestedPayload
from duocthu_gateway.entrypoints.deps import GatewayDep
from duocthu_gateway.entrypoints.errors import documented, error_response
from duocthu_runtime import new_message

router = APIRouter()


class IngestTrigger(BaseModel):
    pdf_uri: str = Field(min_length=1, description="path or URL of the PDF, as the ingest worker sees it")
    release_id: str | None = Field(default=None, pattern=r"^[a-z0-9_-]{1,64}$")
    transcriptions_uri: str | None = None


def _denied(request: Request, status: int, detail: str) -> JSONResponse:
    return error_response(request, status, "forbidden" if status == 403 else "unauthorized", detail,
                          headers={"WWW-Authenticate": "Bearer"} if status == 401 else None)


def authorize(request: Request, token: str | None, authorization: str | None) -> JSONResponse | None:
    if not token:
        return _denied(request, 403, "admin endpoints are disabled (ADMIN_TOKEN is not set)")
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not given:
        return _denied(request, 401, "a bearer token is required")
    if not hmac.compare_digest(given.encode(), token.encode()):
        return _denied(request, 403, "wrong token")
    return None


@router.post("/v1/admin/ingest", response_model=None, status_code=202,
             responses=documented(400, 401, 403, 422, 503))
async def trigger_ingest(body: IngestTrigger, request: Request, gateway: GatewayDep,
                         authorization: Annotated[str | None, Header()] = None) -> JSONResponse:
    if (denied := authorize(request, gateway.settings.admin_token, authorization)) is not None:
        return denied
    job_id = uuid.uuid4().hex
    release_id = body.release_id or f"admin-{job_id[:12]}"
    payload = IngestJobRequestedPayload(job_id=job_id, release_id=release_id, pdf_uri=body.pdf_uri,
                                        transcriptions_uri=body.transcriptions_uri)
    await gateway.jobs.publish(new_message(IngestJobRequested, payload, correlation_id=f"admin:{release_id}"))
    return JSONResponse({"accepted": True, "job_id": job_id, "release_id": release_id}, status_code=202)


class IngestJobState(BaseModel):
    job_id: str
    release_id: str
    part_index: int
    stage: str = Field(description="parse (pages), embed (chunks), done or failed")
    done: int
    total: int | None = None
    updated_at: str = Field(description="when this replica received the update (ISO 8601)")


class IngestJobList(BaseModel):
    jobs: list[IngestJobState] = Field(description="recent ingest job parts, newest update first")


@router.get("/v1/admin/ingest/jobs", response_model=IngestJobList,
            responses={401: {"description": "no bearer token"}, 403: {"description": "wrong token or disabled"}})
async def ingest_jobs(request: Request, gateway: GatewayDep,
                      authorization: Annotated[str | None, Header()] = None) -> JSONResponse:
    """How far recent ingest jobs are (the workers' progress events, as this replica received them)."""
    if (denied := authorize(request, gateway.settings.admin_token, authorization)) is not None:
        return denied
    jobs = [IngestJobState(**update.model_dump(), updated_at=at.isoformat())
            for update, at in gateway.ingest_jobs.recent()]
    return JSONResponse(IngestJobList(jobs=jobs).model_dump(mode="json"), headers={"Cache-Control": "no-store"})
