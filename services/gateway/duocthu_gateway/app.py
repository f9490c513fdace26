"""FastAPI application of the gateway."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from duocthu_contracts import subjects as s
from duocthu_contracts.decisions import Reason
from duocthu_contracts.http import ErrorResponse, RagQueryRequest, RagQueryResponse
from duocthu_contracts.messages import TurnRequested, TurnRequestedPayload
from duocthu_gateway import metrics
from duocthu_gateway.adapters.turns import TurnCorrelator
from duocthu_gateway.domain.responses import abstain, render
from duocthu_gateway.settings import GatewaySettings
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.bus.envelope import new_id, new_turn, utcnow
from duocthu_runtime.observability.logging import get_logger
from duocthu_runtime.observability.tracing import current_traceparent, span, trace_id_hex

log = get_logger(__name__)

_CORRELATION_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


@dataclass
class Gateway:
    settings: GatewaySettings
    bus: Bus
    turns: TurnCorrelator

    async def readiness(self) -> tuple[bool, dict[str, str]]:
        report: dict[str, str] = {"bus": "connected" if self.bus.connected else "disconnected"}
        ok = self.bus.connected
        if not ok:
            return False, report
        for stream in (s.AUDIT_STREAM, s.INGEST_STREAM, s.CORPUS_STREAM):
            try:
                await self.bus.js.stream_info(stream)
                report[f"stream:{stream}"] = "present"
            except Exception:
                report[f"stream:{stream}"] = "missing"
                ok = False
        live = await self.bus.live_stages()
        for stage in self.settings.required_stages:
            count = live.get(stage, 0)
            report[f"stage:{stage}"] = f"{count} ready"
            ok = ok and count > 0
        return ok, report

    async def ask(self, body: RagQueryRequest, correlation_id: str) -> RagQueryResponse:
        started = time.perf_counter()
        with span("gateway query", mode=body.response_mode) as current:
            otel_trace_id = trace_id_hex(current)
            payload = TurnRequestedPayload(
                query=body.query, conversation_id=body.conversation_id, response_mode=body.response_mode
            )
            turn = new_turn(
                TurnRequested,
                payload,
                origin=self.settings.instance_id,
                deadline_s=self.settings.turn_deadline_s,
                llm_calls=self.settings.turn_llm_calls,
                correlation_id=correlation_id,
                traceparent=current_traceparent(),
            )
            try:
                completed = await self.turns.submit(turn, (turn.deadline - utcnow()).total_seconds())
            except Exception:
                log.exception("turn_publish_failed", turn_id=turn.turn_id)
                completed = None
                reason = Reason.INTERNAL_ERROR
            else:
                reason = Reason.REQUEST_BUDGET_EXHAUSTED
            if completed is None:
                response = abstain(
                    trace_id=turn.turn_id, correlation_id=correlation_id, reason=reason,
                    conversation_id=body.conversation_id, otel_trace_id=otel_trace_id,
                )
            else:
                response = render(completed, otel_trace_id=otel_trace_id)
        metrics.REQUEST_LATENCY.labels(response.decision).observe(time.perf_counter() - started)
        metrics.RESPONSES.labels(response.decision, response.reason).inc()
        return response


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    settings = settings or GatewaySettings()
    bus = Bus(settings, client_name=f"gateway:{settings.instance_id}")
    gateway = Gateway(settings, bus, TurnCorrelator(bus, settings.instance_id))

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await bus.connect()
        await gateway.turns.start()
        log.info("gateway_started", instance=settings.instance_id)
        try:
            yield
        finally:
            await gateway.turns.stop()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(bus.stop(), timeout=5)

    app = FastAPI(title="duocthu gateway", version="0.1.0", lifespan=lifespan)
    app.state.gateway = gateway

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(err.get("loc", ())), "msg": err.get("msg", ""), "type": err.get("type", "")}
            for err in exc.errors()
        ]
        body = ErrorResponse(error="invalid_request", detail=detail)
        return JSONResponse(body.model_dump(mode="json"), status_code=422)

    @app.post("/v1/rag/query", response_model=RagQueryResponse)
    async def query(body: RagQueryRequest, request: Request, response: Response) -> RagQueryResponse:
        header = request.headers.get("x-correlation-id", "")
        correlation_id = header if _CORRELATION_RE.match(header) else new_id()
        result = await gateway.ask(body, correlation_id)
        response.headers["X-Correlation-ID"] = result.correlation_id
        response.headers["X-Trace-ID"] = result.trace_id
        return result

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok", "service": "gateway"}

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        ok, report = await gateway.readiness()
        return JSONResponse({"ready": ok, "checks": report}, status_code=200 if ok else 503)

    @app.get("/metrics")
    async def metrics_endpoint() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return app
