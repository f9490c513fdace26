"""Residual-ink QA (seed 003 §6.3): what ink is left on a page once every extracted span is masked?

The ledger proves every extracted span was routed; it cannot prove the
extractor saw everything.  So each page is rendered, the spans are painted
out, and every remaining connected ink region gets a name from what is known
about the page (header band, table grids, formula bars, outline-text runs,
glyph parts poking out of a span box).  ``unclassified`` must be 0: it is
ink nobody can account for, e.g. text the extractor never saw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from duocthu_ingest.domain.model import BBox, overlap_area

NEAR = 2.5  # points


@dataclass
class InkSummary:
    counts: Counter[str] = field(default_factory=Counter)
    unclassified: list[str] = field(default_factory=list)
    fraction_bars_outside_formulas: list[str] = field(default_factory=list)

    def to_report(self) -> dict[str, object]:
        return {"regions": dict(sorted(self.counts.items())), "unclassified": self.unclassified[:50],
                "fraction_bar_candidates_outside_formulas": self.fraction_bars_outside_formulas[:50]}


@dataclass(frozen=True)
class PageKnowledge:
    page: int
    height: float
    header_limit: float
    footer_limit: float
    tables: Sequence[BBox]
    formulas: Sequence[BBox]
    outline_runs: Sequence[BBox]
    spans: Sequence[BBox]
    images: Sequence[BBox] = ()


def _near(a: BBox, b: BBox, pad: float = NEAR) -> bool:
    return a[0] - pad <= b[2] and b[0] - pad <= a[2] and a[1] - pad <= b[3] and b[1] - pad <= a[3]


def classify_region(box: BBox, pixels: int, known: PageKnowledge, speck_max: int) -> str:
    width, height = box[2] - box[0], box[3] - box[1]
    thin_h = width >= 4 * max(height, 0.5)
    thin_v = height >= 4 * max(width, 0.5)
    if pixels <= speck_max:
        return "antialias_speck"
    if box[3] <= known.header_limit or box[1] >= known.footer_limit:
        return "header_rule" if thin_h else "header_band_fragment"
    if any(_near(box, i, 1.0) for i in known.images):
        return "raster_image"  # reported for census; a picture of text would need a transcription
    if any(_near(box, t) for t in known.tables):
        return "table_frame"
    if any(_near(box, r) and overlap_area(box, r) > 0 for r in known.outline_runs):
        return "text_as_vector_outline"
    if thin_h and any(_near(box, f) for f in known.formulas):
        return "fraction_bar_candidate"
    if thin_h and height <= 2.0:
        return "fraction_bar_candidate" if width < 120 else "rule_fragment"
    if thin_v:
        return "rule_fragment"
    if any(_near(box, s, 1.0) for s in known.spans) and height <= 6.0:
        return "glyph_overhang"  # a diacritic or descender drawn just outside its span's box
    return "unclassified"


def classify_page(ink: np.ndarray, scale: float, known: PageKnowledge, speck_max: int, summary: InkSummary) -> None:
    labels, count = ndimage.label(ink, structure=np.ones((3, 3), dtype=bool))
    if count == 0:
        return
    sizes = np.bincount(labels.ravel())
    for index, slc in enumerate(ndimage.find_objects(labels), start=1):
        if slc is None:
            continue
        rows, cols = slc
        box = (cols.start / scale, rows.start / scale, cols.stop / scale, rows.stop / scale)
        kind = classify_region(box, int(sizes[index]), known, speck_max)
        summary.counts[kind] += 1
        where = f"trang vật lý {known.page}, bbox {tuple(round(v) for v in box)}"
        if kind == "unclassified":
            summary.unclassified.append(where)
        elif kind == "fraction_bar_candidate" and not any(_near(box, f) for f in known.formulas):
            summary.fraction_bars_outside_formulas.append(where)
