"""Physical page <-> printed page, read from the folios in the header band (seed 003 §4).

Physical pages (0-based index in the file) are what a crop needs; printed
pages are what a reader opens the book at.  They are never assumed equal.
A folio is trusted when its offset (printed - physical) agrees with a
neighbouring folio; a page without a folio gets a printed number only when
the nearest verified folios on both sides agree on the offset (the page lies
inside one run of consecutive numbering).  Anything else has no printed page,
and a chunk on it is never released.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.model import PageContent, Span


@dataclass
class PageMap:
    printed: dict[int, int] = field(default_factory=dict)
    inferred: set[int] = field(default_factory=set)
    anomalies: list[str] = field(default_factory=list)

    def printed_page(self, physical: int) -> int | None:
        return self.printed.get(physical)

    def to_report(self) -> dict[str, object]:
        return {"pages_with_printed_number": len(self.printed), "inferred": sorted(self.inferred),
                "anomalies": self.anomalies}


def in_header_band(span: Span, page: PageContent, config: IngestConfig) -> bool:
    return span.bbox[3] <= page.height * config.header_band


def in_footer_band(span: Span, page: PageContent, config: IngestConfig) -> bool:
    return span.bbox[1] >= page.height * (1 - config.footer_band)


def folio_candidates(page: PageContent, config: IngestConfig) -> list[int]:
    pattern = re.compile(config.folio_pattern)
    found: list[int] = []
    for span in page.spans:
        text = span.text.strip()
        if pattern.match(text) and (in_header_band(span, page, config) or in_footer_band(span, page, config)):
            found.append(int(text))
    return found


def build_page_map(candidates: Mapping[int, Sequence[int]], window: int = 3) -> PageMap:
    """``candidates``: physical page -> numbers found in its folio band."""
    pages = sorted(candidates)
    offsets = {p: [n - p for n in candidates[p]] for p in pages}
    result = PageMap()
    verified: dict[int, int] = {}
    for page in pages:
        if not offsets[page]:
            continue
        neighbours = [o for q in range(page - window, page + window + 1) if q != page for o in offsets.get(q, [])]
        agreeing = [o for o in offsets[page] if o in neighbours]
        if agreeing:
            verified[page] = agreeing[0]
        elif not neighbours and len(offsets[page]) == 1:
            verified[page] = offsets[page][0]  # an isolated page (a one-page excerpt): its single folio
        else:
            result.anomalies.append(f"physical page {page}: folio {candidates[page]} disagrees with its neighbours")
    contradicted = {p for p in pages if offsets[p] and p not in verified}
    known = sorted(verified)
    for page, offset in verified.items():
        result.printed[page] = page + offset
    for left, right in itertools.pairwise(known):
        if right - left > 1 and verified[left] == verified[right]:
            for page in range(left + 1, right):
                if page in contradicted:
                    continue  # the page prints another number: never overrule it by inference
                result.printed[page] = page + verified[left]
                result.inferred.add(page)
    return result
