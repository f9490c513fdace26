"""Page-region crops of the source PDF, rendered with PyMuPDF and cached on disk.

A citation's region (physical page + bbox) is rendered at a fixed zoom and
kept under ``$VAR_DIR/crops`` keyed by the PDF's hash and the region, so the
same crop is rendered once however many turns cite it.  Implements
:class:`duocthu_gateway.ports.Crops`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from duocthu_gateway.errors import CropError
from duocthu_runtime.hashing import file_sha256

ZOOM = 2.0
MARGIN = 6.0


@dataclass
class CropRenderer:
    pdf: Path
    cache_dir: Path
    _sha: str | None = None

    def _pdf_sha(self) -> str:
        if self._sha is None:
            self._sha = file_sha256(self.pdf)
        return self._sha

    def render(self, page: int, bbox: tuple[float, float, float, float]) -> tuple[bytes, bool]:
        """PNG bytes of the region and whether it came from the cache."""
        if not self.pdf.is_file():
            raise CropError(f"source PDF not found: {self.pdf.name}")
        x0, y0, x1, y1 = bbox
        if not (x1 > x0 and y1 > y0):
            raise CropError(f"empty or inverted box {bbox}")
        key = hashlib.sha256(f"{self._pdf_sha()}:{page}:{x0:.1f},{y0:.1f},{x1:.1f},{y1:.1f}:{ZOOM}".encode())
        cached = self.cache_dir / f"{key.hexdigest()}.png"
        if cached.is_file():
            return cached.read_bytes(), True
        with pymupdf.open(self.pdf) as doc:
            if not 0 <= page < doc.page_count:
                raise CropError(f"page {page} is not in the PDF (0–{doc.page_count - 1})")
            rect = pymupdf.Rect(x0 - MARGIN, y0 - MARGIN, x1 + MARGIN, y1 + MARGIN) & doc[page].rect
            png = doc[page].get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM), clip=rect).tobytes("png")
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        tmp.write_bytes(png)
        tmp.replace(cached)
        return png, False
