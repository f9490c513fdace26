"""Error bodies of every gateway endpoint: the reason plus a trace id the caller can quote (seed 003 §24.16).

The trace id is the caller's ``X-Correlation-ID`` when it is well formed, so
a client's own id follows its request into the logs; otherwise a fresh one.
It is sent in the body and in ``X-Trace-ID`` so even a non-JSON client sees it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from duocthu_contracts.http import ErrorResponse
from duocthu_gateway.errors import RetrievalUnavailable, StoreUnavailable
from duocthu_runtime import get_logger, new_id

log = get_logger(__name__)

CORRELATION_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


def request_trace_id(request: Request) -> str:
    header = request.headers.get("x-correlation-id", "")
    return header if CORRELATION_RE.match(header) else new_id()


def own_correlation_id(request: Request, correlation_id: str) -> bool:
    """Whether ``correlation_id`` is the client's own (its ``X-Correlation-ID``), not one minted here."""
    return request.headers.get("x-correlation-id") == correlation_id


#: What each error status means, for the OpenAPI schema (every code the gateway returns is published there).
ERROR_MEANINGS: dict[int, str] = {
    400: "Malformed request (e.g. an unparsable body)",
    401: "Missing or wrong bearer token",
    403: "Not allowed: another client's conversation, no client token, or a wrong admin token",
    404: "No such drug, section, page or turn",
    408: "The request body did not arrive within BODY_TIMEOUT_S",
    413: "The request body is larger than MAX_BODY_BYTES",
    422: "Invalid request: the body or a parameter does not match the schema",
    429: "Rate limit exceeded (see Retry-After)",
    503: "A dependency (store, bus, retrieval) is unavailable",
}


def documented(*codes: int) -> dict[int | str, dict[str, object]]:
    """``responses=`` for a route: each code with :class:`ErrorResponse` as its body."""
    return {code: {"model": ErrorResponse, "description": ERROR_MEANINGS[code]} for code in codes}


def error_response(request: Request, status: int, error: str, detail: list[dict[str, object]] | str,
                   *, headers: Mapping[str, str] | None = None, trace_id: str | None = None) -> JSONResponse:
    trace = trace_id or request_trace_id(request)
    body = ErrorResponse(error=error, detail=detail, trace_id=trace)
    return JSONResponse(body.model_dump(mode="json"), status_code=status,
                        headers={**(headers or {}), "X-Trace-ID": trace})


#: Codes any operation may answer, whatever its route: the body limits run before routing (entrypoints/limits.py).
EVERY_OPERATION = (408, 413)


def publish_error_codes(app: FastAPI) -> None:
    """Put the codes every operation may return into the OpenAPI schema (each route lists its own)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for item in schema.get("paths", {}).values():
                for operation in item.values():
                    responses = operation.setdefault("responses", {})
                    for code in EVERY_OPERATION:
                        responses.setdefault(str(code), {
                            "description": ERROR_MEANINGS[code],
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}})
            schema.setdefault("components", {}).setdefault("schemas", {}).setdefault(
                "ErrorResponse", ErrorResponse.model_json_schema(ref_template="#/components/schemas/{model}"))
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def install_error_handlers(app: FastAPI) -> None:
    """Invalid requests (422), an unavailable store or retrieval (503): each with its reason and a trace id."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(err.get("loc", ())), "msg": err.get("msg", ""), "type": err.get("type", "")}
            for err in exc.errors()
        ]
        return error_response(request, 422, "invalid_request", detail)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        error = {400: "malformed_request", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(request, exc.status_code, error, str(exc.detail), headers=exc.headers)

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(request: Request, exc: StoreUnavailable) -> JSONResponse:
        log.warning("store_unavailable", path=request.url.path, error=str(exc))
        return error_response(request, 503, "store_unavailable", str(exc))

    @app.exception_handler(RetrievalUnavailable)
    async def retrieval_unavailable(request: Request, exc: RetrievalUnavailable) -> JSONResponse:
        log.warning("retrieval_no_reply", path=request.url.path, error=str(exc))
        return error_response(request, 503, "retrieval_unavailable", str(exc))
