"""Error bodies of every gateway endpoint: the reason plus a trace id the caller can quote (seed 003 §24.16).

The trace id is the caller's ``X-Correlation-ID`` when it is well formed, so
a client's own id follows its request into the logs; otherwise a fresh one.
It is sent in the body and in ``X-Trace-ID`` so even a non-JSON client sees it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from duocthu_contracts.http import ErrorResponse
from duocthu_gateway.errors import RetrievalUnavailable, StoreUnavailable
from duocthu_runtime.bus.envelope import new_id
from duocthu_runtime.observability.logging import get_logger

log = get_logger(__name__)

CORRELATION_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


def request_trace_id(request: Request) -> str:
    header = request.headers.get("x-correlation-id", "")
    return header if CORRELATION_RE.match(header) else new_id()


def error_response(request: Request, status: int, error: str, detail: list[dict[str, object]] | str,
                   *, headers: Mapping[str, str] | None = None, trace_id: str | None = None) -> JSONResponse:
    trace = trace_id or request_trace_id(request)
    body = ErrorResponse(error=error, detail=detail, trace_id=trace)
    return JSONResponse(body.model_dump(mode="json"), status_code=status,
                        headers={**(headers or {}), "X-Trace-ID": trace})


def install_error_handlers(app: FastAPI) -> None:
    """Invalid requests (422), an unavailable store or retrieval (503): each with its reason and a trace id."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(err.get("loc", ())), "msg": err.get("msg", ""), "type": err.get("type", "")}
            for err in exc.errors()
        ]
        return error_response(request, 422, "invalid_request", detail)

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(request: Request, exc: StoreUnavailable) -> JSONResponse:
        log.warning("store_unavailable", path=request.url.path, error=str(exc))
        return error_response(request, 503, "store_unavailable", str(exc))

    @app.exception_handler(RetrievalUnavailable)
    async def retrieval_unavailable(request: Request, exc: RetrievalUnavailable) -> JSONResponse:
        log.warning("retrieval_no_reply", path=request.url.path, error=str(exc))
        return error_response(request, 503, "retrieval_unavailable", str(exc))
