"""Where a job's PDF comes from: a filesystem path, a file:// URL or an http(s):// object URL."""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import unquote, urlparse

import httpx

from duocthu_ingest.errors import BadInput


def resolve_pdf(uri: str, download_dir: Path, timeout_s: float = 120.0) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        path = Path(unquote(parsed.path) if parsed.scheme == "file" else uri)
        if not path.is_file():
            raise BadInput(f"không tìm thấy tệp PDF: {path}")
        return path
    if parsed.scheme not in ("http", "https"):
        raise BadInput(f"địa chỉ PDF không được hỗ trợ (chỉ đường dẫn, file://, http(s)://): {uri}")
    download_dir.mkdir(parents=True, exist_ok=True)
    target = download_dir / (hashlib.sha256(uri.encode()).hexdigest()[:24] + ".pdf")
    partial = target.with_suffix(".part")
    try:
        with httpx.stream("GET", uri, timeout=timeout_s, follow_redirects=True) as response:
            response.raise_for_status()
            with partial.open("wb") as f:
                for block in response.iter_bytes():
                    f.write(block)
    except httpx.HTTPError as exc:
        partial.unlink(missing_ok=True)
        raise BadInput(f"không tải được PDF từ {uri}: {exc}") from exc
    partial.replace(target)
    return target
