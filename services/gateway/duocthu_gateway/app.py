"""FastAPI application of the gateway."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from duocthu_contracts import subjects as s
from duocthu_contracts.decisions import Reason
from duocthu_contracts.http import (
    FeedbackAccepted,
    FeedbackRequest,
    HistoryEntry,
    HistoryResponse,
    RagQueryRequest,
    RagQueryResponse,
)
from duocthu_contracts.messages import TurnRequested, TurnRequestedPayload
from duocthu_gateway import metrics
from duocthu_gateway.adapters.crops import CropRenderer
from duocthu_gateway.adapters.ratelimit import RateLimiter
from duocthu_gateway.adapters.store import Store, database_url
from duocthu_gateway.adapters.turns import TurnCorrelator
from duocthu_gateway.api import admin, browse, web
from duocthu_gateway.api.errors import error_response, request_trace_id
from duocthu_gateway.conversations import Conversations
from duocthu_gateway.domain.responses import abstain, render
from duocthu_gateway.settings import GatewaySettings
from duocthu_gateway.streaming import stream_turn
from duocthu_runtime.bus.connection import Bus
from duocthu_runtime.bus.envelope import new_turn, utcnow
from duocthu_runtime.observability.logging import get_logger
from duocthu_runtime.observability.tracing import current_traceparent, span, trace_id_hex

log = get_logger(__name__)

class StoreUnavailable(RuntimeError):
    """The history/feedback store cannot be read or written (503 with the reason, never masked)."""


@dataclass
class Gateway:
    settings: GatewaySettings
    bus: Bus
    turns: TurnCorrelator
    conversations: Conversations

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

    async def ask(self, body: RagQueryRequest, correlation_id: str,
                  on_turn: Callable[[TurnRequested], None] | None = None) -> RagQueryResponse:
        """One turn; ``on_turn`` sees the turn before it is published (the SSE stream watches its progress)."""
        started = time.perf_counter()
        with span("gateway query", mode=body.response_mode) as current:
            otel_trace_id = trace_id_hex(current)
            state = await self.conversations.state(body.conversation_id)
            payload = TurnRequestedPayload(
                query=body.query, conversation_id=body.conversation_id, response_mode=body.response_mode,
                history=state.history, last_frame=state.last_frame, clarify_streak=state.clarify_streak,
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
            if on_turn is not None:
                on_turn(turn)
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
        await self.conversations.record(response, completed, body.query)
        metrics.REQUEST_LATENCY.labels(response.decision).observe(time.perf_counter() - started)
        metrics.RESPONSES.labels(response.decision, response.reason).inc()
        return response


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    settings = settings or GatewaySettings()
    bus = Bus(settings, client_name=f"gateway:{settings.instance_id}")
    store = Store(database_url(settings.database_url, str(settings.var_dir)))
    gateway = Gateway(settings, bus, TurnCorrelator(bus, settings.instance_id),
                      Conversations(store, settings.history_turns))

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await bus.connect()
        await gateway.turns.start()
        try:
            await store.create()
        except Exception:  # fail open: answers still flow, history and traces are counted as lost
            log.exception("store_unavailable", url=store.url.split("@")[-1])
        log.info("gateway_started", instance=settings.instance_id)
        try:
            yield
        finally:
            await gateway.turns.stop()
            with contextlib.suppress(Exception):
                await store.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(bus.stop(), timeout=5)

    app = FastAPI(title="duocthu gateway", version="0.1.0", lifespan=lifespan)
    app.state.gateway = gateway
    app.state.crops = CropRenderer(settings.source_pdf or Path(settings.var_dir) / "sample-formulary.pdf",
                                   Path(settings.var_dir) / "crops")
    limiter = RateLimiter(bus, settings.rate_limit_per_minute)
    app.include_router(browse.router)
    app.include_router(admin.router)
    app.include_router(web.router)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(err.get("loc", ())), "msg": err.get("msg", ""), "type": err.get("type", "")}
            for err in exc.errors()
        ]
        return error_response(request, 422, "invalid_request", detail)

    @app.post("/v1/rag/query", response_model=RagQueryResponse)
    async def query(body: RagQueryRequest, request: Request, response: Response) -> RagQueryResponse | JSONResponse:
        correlation_id = request_trace_id(request)
        if (limited := await rate_limited(request, correlation_id)) is not None:
            return limited
        result = await gateway.ask(body, correlation_id)
        response.headers["X-Correlation-ID"] = result.correlation_id
        response.headers["X-Trace-ID"] = result.trace_id
        return result

    async def rate_limited(request: Request, correlation_id: str) -> JSONResponse | None:
        client = request.headers.get("x-forwarded-for", request.client.host if request.client else "unknown")
        decision = await limiter.check(client.split(",")[0].strip())
        if decision.allowed:
            return None
        metrics.RATE_LIMITED.inc()
        return error_response(request, 429, "rate_limited",
                              f"quá {decision.limit} câu hỏi mỗi {decision.window_s} giây; thử lại sau "
                              f"{decision.retry_after_s} giây",
                              headers={"Retry-After": str(decision.retry_after_s)}, trace_id=correlation_id)

    @app.post("/v1/rag/query/stream", response_model=None)
    async def query_stream(body: RagQueryRequest, request: Request) -> StreamingResponse | JSONResponse:
        """Server-sent events: one status line per stage as it starts, then the verified result (never a draft)."""
        correlation_id = request_trace_id(request)
        if (limited := await rate_limited(request, correlation_id)) is not None:
            return limited
        return StreamingResponse(stream_turn(gateway, body, correlation_id), media_type="text/event-stream")

    @app.get("/v1/rag/history", response_model=HistoryResponse)
    async def history(conversation_id: Annotated[str, Query(pattern=r"^[A-Za-z0-9_-]{1,128}$")],
                      limit: Annotated[int, Query(ge=1, le=100)] = 20) -> HistoryResponse:
        try:
            rows = await store.recent(conversation_id, limit)
        except Exception as exc:
            metrics.HISTORY_READ_FAILURES.inc()
            raise StoreUnavailable(f"the history store failed: {type(exc).__name__}") from exc
        return HistoryResponse(conversation_id=conversation_id, turns=[
            HistoryEntry(trace_id=r.turn_id, query=r.query, decision=r.decision, reason=r.reason,
                         resolved_drug_ids=list(r.resolved_drug_ids or []), at=r.created_at) for r in rows])

    @app.post("/v1/rag/feedback", response_model=FeedbackAccepted)
    async def feedback(body: FeedbackRequest, request: Request) -> FeedbackAccepted | JSONResponse:
        try:
            known = await store.turn(body.trace_id)
            if known is None:
                return error_response(request, 404, "unknown_trace", f"no turn {body.trace_id}",
                                      trace_id=body.trace_id)
            await store.add_feedback(body.trace_id, body.helpful, body.comment)
        except Exception as exc:
            raise StoreUnavailable(f"the history store failed: {type(exc).__name__}") from exc
        return FeedbackAccepted(trace_id=body.trace_id)

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(request: Request, exc: StoreUnavailable) -> JSONResponse:
        return error_response(request, 503, "store_unavailable", str(exc))

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
