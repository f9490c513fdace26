"""A conversation's history (``GET /v1/rag/history``) and feedback on a turn (``POST /v1/rag/feedback``).

Both serve only the client that owns the conversation (entrypoints/identity.py): 403 otherwise.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from duocthu_contracts.http import CONVERSATION_ID_PATTERN, FeedbackAccepted, FeedbackRequest, HistoryResponse
from duocthu_gateway.domain.ownership import NO_TOKEN, NOT_OWNER
from duocthu_gateway.entrypoints.deps import GatewayDep
from duocthu_gateway.entrypoints.errors import documented, error_response
from duocthu_gateway.entrypoints.identity import presented

router = APIRouter()


def not_owner(request: Request) -> JSONResponse:
    return error_response(request, 403, "not_owner", NOT_OWNER)


def no_token(request: Request) -> JSONResponse:
    return error_response(request, 403, "client_token_required", NO_TOKEN)


@router.get("/v1/rag/history", response_model=HistoryResponse, responses=documented(403, 422, 503))
async def history(request: Request, gateway: GatewayDep,
                  conversation_id: Annotated[str, Query(pattern=CONVERSATION_ID_PATTERN)],
                  limit: Annotated[int, Query(ge=1, le=100)] = 20) -> HistoryResponse | JSONResponse:
    client = presented(request)
    if client is None:
        return no_token(request)
    if not await gateway.conversations.owned_by(conversation_id, client.key):
        return not_owner(request)
    return await gateway.conversations.history(conversation_id, limit)


@router.post("/v1/rag/feedback", response_model=FeedbackAccepted, responses=documented(400, 403, 404, 422, 503))
async def feedback(body: FeedbackRequest, request: Request, gateway: GatewayDep) -> FeedbackAccepted | JSONResponse:
    client = presented(request)
    if client is None:
        return no_token(request)
    accepted = await gateway.conversations.feedback(body, client.key)
    if accepted is None:
        return error_response(request, 404, "unknown_trace", f"no turn {body.trace_id}", trace_id=body.trace_id)
    if accepted is False:
        return not_owner(request)
    assert accepted is not True
    return accepted
