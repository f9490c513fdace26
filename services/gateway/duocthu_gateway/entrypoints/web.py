"""The web page at ``/``: static HTML, CSS and JavaScript shipped in the package (no Node toolchain)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from duocthu_contracts.http import DISCLAIMER
from duocthu_gateway.domain.reasons import REASON_MESSAGES

router = APIRouter()
WEB = Path(__file__).resolve().parent.parent / "web"
_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".js": "text/javascript; charset=utf-8"}


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(WEB / "index.html", media_type=_TYPES[".html"])


@router.get("/static/{name}", include_in_schema=False, response_model=None)
async def static(name: str) -> Response:
    path = (WEB / name).resolve()
    if path.parent != WEB or path.suffix not in _TYPES or not path.is_file():
        return Response(status_code=404)
    return FileResponse(path, media_type=_TYPES[path.suffix])


@router.get("/v1/rag/reasons")
async def reasons() -> dict[str, str]:
    """Plain-Vietnamese text of every reason (the page shows these; one place owns them)."""
    return {reason.value: text for reason, text in REASON_MESSAGES.items()}


@router.get("/v1/rag/disclaimer")
async def disclaimer() -> dict[str, str]:
    """The fixed disclaimer, shown by the page before any answer arrives."""
    return {"disclaimer": DISCLAIMER}
