"""Page-region crops of the source PDF, rendered with PyMuPDF and cached on disk.

A citation's region (physical page + bbox) is rendered at a fixed zoom and
kept under ``$VAR_DIR/crops`` keyed by the PDF's hash and the region, so the
same crop is rendered once however many turns cite it.  The region comes
from the client, so it is validated (finite, non-empty after clamping to the
page: otherwise :class:`CropError`, a 4xx) and normalised (clamped, rounded
to whole points) before it becomes a cache key, and the cache holds at most
``max_files`` crops (oldest evicted): a client cannot fill the disk by asking
for a million slightly different rectangles.  Implements
:class:`duocthu_gateway.ports.Crops`.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

from duocthu_gateway.errors import CropError
from duocthu_runtime import file_sha256

ZOOM = 2.0
MARGIN = 6.0
MAX_FILES = 2000

# PyMuPDF is imported on the first crop, not with this module: it is most of the gateway's import time, and a
# gateway restarted after a crash (clients waiting) should not pay for it before it can answer a question.


@dataclass
class CropRenderer:
    pdf: Path
    cache_dir: Path
    _sha: str | None = None

    def _pdf_sha(self) -> str:
        if self._sha is None:
            self._sha = file_sha256(self.pdf)
        return self._sha

    max_files: int = MAX_FILES
    _page_rects: dict[int, tuple[float, float, float, float]] | None = None

    def _pages(self) -> dict[int, tuple[float, float, float, float]]:
        if self._page_rects is None:
            import pymupdf

            with pymupdf.open(self.pdf) as doc:
                self._page_rects = {number: tuple(doc[number].rect) for number in range(doc.page_count)}
        return self._page_rects

    def region(self, page: int, bbox: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """The rectangle actually rendered: margin added, clamped to the page, whole points; CropError if none."""
        if not all(math.isfinite(v) for v in bbox):
            raise CropError(f"box coordinates must be finite numbers: {bbox}")
        x0, y0, x1, y1 = bbox
        if not (x1 > x0 and y1 > y0):
            raise CropError(f"empty or inverted box {bbox}")
        pages = self._pages()
        if page not in pages:
            raise CropError(f"page {page} is not in the PDF (0–{len(pages) - 1})")
        px0, py0, px1, py1 = pages[page]
        left, top = max(px0, x0 - MARGIN), max(py0, y0 - MARGIN)
        right, bottom = min(px1, x1 + MARGIN), min(py1, y1 + MARGIN)
        if not (right - left >= 1 and bottom - top >= 1):
            raise CropError(f"box {bbox} lies outside page {page} ({px0:g},{py0:g})–({px1:g},{py1:g})")
        return math.floor(left), math.floor(top), math.ceil(right), math.ceil(bottom)

    def render(self, page: int, bbox: tuple[float, float, float, float]) -> tuple[bytes, bool]:
        """PNG bytes of the region and whether it came from the cache."""
        if not self.pdf.is_file():
            raise CropError(f"source PDF not found: {self.pdf.name}")
        left, top, right, bottom = self.region(page, bbox)
        key = hashlib.sha256(f"{self._pdf_sha()}:{page}:{left},{top},{right},{bottom}:{ZOOM}".encode())
        cached = self.cache_dir / f"{key.hexdigest()}.png"
        if cached.is_file():
            return cached.read_bytes(), True
        import pymupdf

        with pymupdf.open(self.pdf) as doc:
            rect = pymupdf.Rect(left, top, right, bottom) & doc[page].rect
            png = doc[page].get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM), clip=rect).tobytes("png")
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self._evict(keep=self.max_files - 1)
        tmp = cached.with_suffix(f".{id(png)}.tmp")
        tmp.write_bytes(png)
        tmp.replace(cached)
        return png, False

    def _evict(self, keep: int) -> None:
        """Remove the oldest crops until at most ``keep`` remain (another replica may remove them first)."""
        files = sorted(self.cache_dir.glob("*.png"), key=lambda f: f.stat().st_mtime if f.exists() else 0.0)
        for stale in files[:max(0, len(files) - keep)]:
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
