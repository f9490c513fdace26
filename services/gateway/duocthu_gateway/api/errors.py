"""Error bodies of every gateway endpoint: the reason plus a trace id the caller can quote (seed 003 §24.16).

The trace id is the caller's ``X-Correlation-ID`` when it is well formed, so
a client's own id follows its request into the logs; otherwise a fresh one.
It is sent in the body and in ``X-Trace-ID`` so even a non-JSON client sees it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fastapi import Request
from fastapi.responses import JSONResponse

from duocthu_contracts.http import ErrorResponse
from duocthu_runtime.bus.envelope import new_id

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
