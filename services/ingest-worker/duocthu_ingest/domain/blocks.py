"""Tables and 2-D formulas: detected from the page's vector drawings, then quarantined (seed 003 §7).

A ruled table is a connected cluster of ruling lines (at least two
horizontal and two vertical, or three horizontal rules spanning the same
width); a 2-D formula is a short horizontal bar with a line of text directly
above it (numerator) and directly below it (denominator), plus whatever
shares its row (the lead "Clcr (ml/phút) =").  Every span inside a block is
quarantined: block text is never linearised into prose, because a flattened
fraction can read as a product (the Cockcroft–Gault hazard).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.corpus import BlockKind
from duocthu_ingest.domain.model import BBox, Drawing, DrawingKind, Line, QuarantineBlock, center_inside, union

TOUCH = 2.5  # points: ruling lines closer than this belong to one grid


@dataclass(frozen=True, slots=True)
class Rule:
    bbox: BBox

    @property
    def horizontal(self) -> bool:
        return (self.bbox[2] - self.bbox[0]) >= (self.bbox[3] - self.bbox[1])


def rules_of(drawings: Sequence[Drawing], top: float, bottom: float) -> list[Rule]:
    """Ruling lines of the body (header/footer bands excluded); a stroked frame gives its four edges."""
    rules: list[Rule] = []
    for d in drawings:
        if d.bbox[3] < top or d.bbox[1] > bottom:
            continue
        if d.kind in (DrawingKind.HLINE, DrawingKind.VLINE):
            rules.append(Rule(d.bbox))
        elif d.kind is DrawingKind.RECT and not d.filled:
            x0, y0, x1, y1 = d.bbox
            rules += [Rule((x0, y0, x1, y0)), Rule((x0, y1, x1, y1)), Rule((x0, y0, x0, y1)), Rule((x1, y0, x1, y1))]
    return rules


def _touch(a: BBox, b: BBox) -> bool:
    return a[0] - TOUCH <= b[2] and b[0] - TOUCH <= a[2] and a[1] - TOUCH <= b[3] and b[1] - TOUCH <= a[3]


def clusters(rules: Sequence[Rule]) -> list[list[Rule]]:
    parent = list(range(len(rules)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(len(rules)), key=lambda i: rules[i].bbox[1])
    for pos, i in enumerate(order):
        for j in order[pos + 1:]:
            if rules[j].bbox[1] - TOUCH > rules[i].bbox[3]:
                break
            if _touch(rules[i].bbox, rules[j].bbox):
                parent[find(i)] = find(j)
    groups: dict[int, list[Rule]] = {}
    for i, rule in enumerate(rules):
        groups.setdefault(find(i), []).append(rule)
    return list(groups.values())


def _similar_width(rules: Sequence[Rule]) -> bool:
    widths = [r.bbox[2] - r.bbox[0] for r in rules]
    return max(widths) - min(widths) <= 0.15 * max(widths)


def table_shape(group: Sequence[Rule]) -> str | None:
    hs = [r for r in group if r.horizontal]
    vs = [r for r in group if not r.horizontal]
    if len(hs) >= 2 and len(vs) >= 2:
        box = union([r.bbox for r in group])
        full = box[3] - box[1]
        partial = any((v.bbox[3] - v.bbox[1]) < full - 2 * TOUCH for v in vs)
        partial_h = any((h.bbox[2] - h.bbox[0]) < (box[2] - box[0]) - 2 * TOUCH for h in hs)
        return "merged_header_grid" if partial or partial_h else "ruled_grid"
    if len(hs) >= 3 and not vs:
        # three or more stacked rules of (nearly) one width: a rules-only (booktabs) table
        by_x = [h for h in hs if abs(h.bbox[0] - hs[0].bbox[0]) <= 3 * TOUCH]
        if len(by_x) >= 3 and _similar_width(by_x):
            return "rules_only"
    return None


@dataclass(frozen=True, slots=True)
class BarCandidate:
    bbox: BBox


def detect_tables(rules: Sequence[Rule]) -> tuple[list[tuple[str, BBox]], list[Rule]]:
    """Tables (shape, bbox) and the rules left over (not part of any table)."""
    tables: list[tuple[str, BBox]] = []
    leftovers: list[Rule] = []
    for group in clusters(rules):
        shape = table_shape(group)
        if shape is None:
            leftovers.extend(group)
        else:
            tables.append((shape, union([r.bbox for r in group])))
    return tables, leftovers


def detect_formula(bar: Rule, lines: Sequence[Line], column_box: BBox) -> BBox | None:
    """The formula around a short horizontal bar: text directly above and below it, plus its row."""
    if not bar.horizontal:
        return None
    x0, y0, x1, y1 = bar.bbox
    width = x1 - x0
    if width < 8 or width > 0.9 * (column_box[2] - column_box[0]):
        return None
    bar_y = (y0 + y1) / 2

    def over(line: Line) -> bool:
        b = line.bbox
        inside = min(b[2], x1) - max(b[0], x0)
        return inside > 0.5 * (b[2] - b[0])

    def centre(line: Line) -> float:
        return (line.bbox[1] + line.bbox[3]) / 2

    # glyph boxes include ascenders/descenders, so a numerator's box may touch the bar: compare centres
    above = [ln for ln in lines if over(ln) and 0 < bar_y - centre(ln) <= ln.size * 1.3]
    below = [ln for ln in lines if over(ln) and 0 < centre(ln) - bar_y <= ln.size * 1.3]
    if not above or not below:
        return None
    top = min(ln.bbox[1] for ln in above)
    bottom = max(ln.bbox[3] for ln in below)
    row = [ln for ln in lines
           if ln.bbox[1] < bar_y < ln.bbox[3] and column_box[0] - 2 <= ln.bbox[0] and ln.bbox[2] <= column_box[2] + 2]
    return union([bar.bbox, *(ln.bbox for ln in above + below + row), (x0, top, x1, bottom)])


def block_for(kind: BlockKind, shape: str, page: int, ordinal: int, bbox: BBox) -> QuarantineBlock:
    return QuarantineBlock(block_id=f"p{page}_{kind.value}{ordinal}", kind=kind, shape=shape, page=page, bbox=bbox)


def lines_in(block: QuarantineBlock, lines: Sequence[Line], pad: float = 1.0) -> list[Line]:
    return [ln for ln in lines if ln.page == block.page and center_inside(ln.bbox, block.bbox, pad)]
