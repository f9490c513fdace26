"""Asking: ``POST /v1/rag/query`` (the verified result) and ``POST /v1/rag/query/stream`` (status lines, then it)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from duocthu_contracts.http import RagQueryRequest, RagQueryResponse
from duocthu_gateway import metrics
from duocthu_gateway.domain.clients import client_address
from duocthu_gateway.domain.ownership import NOT_OWNER
from duocthu_gateway.domain.timing import TurnTimings
from duocthu_gateway.entrypoints.deps import Gateway, GatewayDep
from duocthu_gateway.entrypoints.errors import documented, error_response, own_correlation_id, request_trace_id
from duocthu_gateway.entrypoints.identity import Client, hand_over, presented_or_issued
from duocthu_gateway.entrypoints.streaming import stream_turn

router = APIRouter()


async def rate_limited(request: Request, gateway: Gateway, correlation_id: str) -> JSONResponse | None:
    """The refusal when this client is over its limit (counted across every gateway replica), else ``None``."""
    peer = request.client.host if request.client else "unknown"
    client = client_address(peer, request.headers.get("x-forwarded-for"), gateway.trusted_proxies)
    decision = await gateway.limiter.check(client)
    if decision.allowed:
        return None
    metrics.RATE_LIMITED.inc()
    return error_response(request, 429, "rate_limited",
                          f"quá {decision.limit} câu hỏi mỗi {decision.window_s} giây; thử lại sau "
                          f"{decision.retry_after_s} giây",
                          headers={"Retry-After": str(decision.retry_after_s)}, trace_id=correlation_id)


async def foreign(request: Request, gateway: Gateway, body: RagQueryRequest, client: Client) -> JSONResponse | None:
    """The refusal when ``body`` continues another client's conversation (its history would go into the
    turn and its last frame would steer the answer), else ``None``."""
    if body.conversation_id and not await gateway.conversations.may_continue(body.conversation_id, client.key):
        return error_response(request, 403, "not_owner", NOT_OWNER)
    return None


@router.post("/v1/rag/query", response_model=RagQueryResponse, responses=documented(400, 403, 422, 429, 503))
async def query(body: RagQueryRequest, request: Request, response: Response,
                gateway: GatewayDep) -> RagQueryResponse | JSONResponse:
    timings = TurnTimings()
    correlation_id = request_trace_id(request)
    with timings.phase("ratelimit"):
        limited = await rate_limited(request, gateway, correlation_id)
    if limited is not None:
        return limited
    client = presented_or_issued(request)
    with timings.phase("owner"):
        refused = await foreign(request, gateway, body, client)
    if refused is not None:
        return refused
    result = await gateway.asking.ask(body, correlation_id, client_key=client.key, timings=timings,
                                      asked_again=own_correlation_id(request, correlation_id))
    hand_over(response, client)
    response.headers["X-Correlation-ID"] = result.correlation_id
    response.headers["X-Trace-ID"] = result.trace_id
    if gateway.settings.server_timing:
        timings.total()
        response.headers["Server-Timing"] = timings.header()
    return result


@router.post("/v1/rag/query/stream", response_model=None, responses={
    200: {"content": {"text/event-stream": {}}, "description": "Status events, then the result"},
    **documented(400, 403, 422, 429, 503)})
async def query_stream(body: RagQueryRequest, request: Request,
                       gateway: GatewayDep) -> StreamingResponse | JSONResponse:
    """Server-sent events: one status line per stage as it starts, then the verified result (never a draft)."""
    correlation_id = request_trace_id(request)
    if (limited := await rate_limited(request, gateway, correlation_id)) is not None:
        return limited
    client = presented_or_issued(request)
    if (refused := await foreign(request, gateway, body, client)) is not None:
        return refused
    streaming = StreamingResponse(stream_turn(gateway.asking, gateway.turns, body, correlation_id, client.key,
                                              asked_again=own_correlation_id(request, correlation_id)),
                                  media_type="text/event-stream")
    hand_over(streaming, client)
    return streaming
