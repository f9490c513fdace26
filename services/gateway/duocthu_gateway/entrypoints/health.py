"""``/healthz`` (the process is up), ``/readyz`` (it can answer), ``/metrics`` (Prometheus)."""

from __future__ import annotations

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from duocthu_gateway.entrypoints.deps import GatewayDep

router = APIRouter()


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok", "service": "gateway"}


@router.get("/readyz", responses={503: {"description": "Not ready: the failing checks are named in the body"}})
async def readyz(gateway: GatewayDep) -> JSONResponse:
    ok, report = await gateway.readiness.check()
    return JSONResponse({"ready": ok, "checks": report}, status_code=200 if ok else 503)


@router.get("/metrics", responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text exposition"}})
async def metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
