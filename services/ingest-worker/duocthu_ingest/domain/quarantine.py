"""Finding a page's quarantined blocks and taking their spans out of the text stream (seed 003 §7)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from duocthu_contracts.corpus import BlockKind
from duocthu_ingest.domain.blocks import block_for, detect_formula, detect_tables, rules_of
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.layout import group_lines
from duocthu_ingest.domain.model import BBox, Line, PageContent, QuarantineBlock, Span, center_inside, union

MAX_CAPTION_LINES = 3


def _caption_above(table: BBox, lines: Sequence[Line], caption: re.Pattern[str]) -> list[Line]:
    """The caption ("Bảng 2. …", possibly wrapped) directly above a table, walking up line by line."""
    above = sorted((ln for ln in lines if min(ln.bbox[2], table[2]) - max(ln.bbox[0], table[0]) > 0
                    and ln.bbox[3] <= table[1] + 2), key=lambda ln: -ln.bbox[3])
    found: list[Line] = []
    edge = table[1]
    for line in above[:MAX_CAPTION_LINES]:
        if edge - line.bbox[3] > 1.6 * (line.size or 10.0):
            break
        found.append(line)
        if caption.match(line.text.strip()):
            return found
        edge = line.bbox[1]
    return []


def find_blocks(page: PageContent, body: Sequence[Span], config: IngestConfig) -> list[QuarantineBlock]:
    top = page.height * config.header_band
    bottom = page.height * (1 - config.footer_band)
    rules = rules_of(page.drawings, top, bottom)
    tables, leftovers = detect_tables(rules)
    lines = group_lines(body, page.page)
    caption = re.compile(config.table_caption_pattern)
    middle = page.width / 2
    blocks: list[QuarantineBlock] = []
    for shape, grid in tables:
        above = _caption_above(grid, lines, caption)
        box = union([grid, *(ln.bbox for ln in above)])
        block = block_for(BlockKind.TABLE, shape, page.page, len(blocks), box)
        block.caption = " ".join(ln.text.strip() for ln in reversed(above))
        blocks.append(block)
    for rule in leftovers:
        if not rule.horizontal or any(center_inside(rule.bbox, b.bbox) for b in blocks):
            continue
        cx = (rule.bbox[0] + rule.bbox[2]) / 2
        column = (0.0, top, middle, bottom) if cx < middle else (middle, top, page.width, bottom)
        formula = detect_formula(rule, lines, column)
        if formula is not None and not any(center_inside(formula, b.bbox) for b in blocks):
            blocks.append(block_for(BlockKind.FORMULA, "fraction", page.page, len(blocks), formula))
    for block in blocks:
        inside = [s for s in body if center_inside(s.bbox, block.bbox, 1.0)]
        block.span_ids = [s.span_id for s in inside]
        block.text = "\n".join(ln.text for ln in group_lines(inside, page.page))
    return blocks
