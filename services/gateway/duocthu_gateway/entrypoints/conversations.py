"""A conversation's history (``GET /v1/rag/history``) and feedback on a turn (``POST /v1/rag/feedback``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from duocthu_contracts.http import CONVERSATION_ID_PATTERN, FeedbackAccepted, FeedbackRequest, HistoryResponse
from duocthu_gateway.entrypoints.deps import GatewayDep
from duocthu_gateway.entrypoints.errors import error_response

router = APIRouter()


@router.get("/v1/rag/history", response_model=HistoryResponse)
async def history(gateway: GatewayDep, conversation_id: Annotated[str, Query(pattern=CONVERSATION_ID_PATTERN)],
                  limit: Annotated[int, Query(ge=1, le=100)] = 20) -> HistoryResponse:
    return await gateway.conversations.history(conversation_id, limit)


@router.post("/v1/rag/feedback", response_model=FeedbackAccepted)
async def feedback(body: FeedbackRequest, request: Request, gateway: GatewayDep) -> FeedbackAccepted | JSONResponse:
    accepted = await gateway.conversations.feedback(body)
    if accepted is None:
        return error_response(request, 404, "unknown_trace", f"no turn {body.trace_id}", trace_id=body.trace_id)
    return accepted
