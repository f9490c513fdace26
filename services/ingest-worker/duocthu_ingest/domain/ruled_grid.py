"""The second table extractor: a grid rebuilt from the ruling lines, cells filled from word positions.

It shares no code with the ``find_tables`` extractor on purpose (issue 19):
the two must agree cell by cell before a table is released, which only
means something if they can fail differently.  Algorithm: the distinct x of
vertical rules and y of horizontal rules give the candidate lattice; two
neighbouring lattice slots belong to one cell when no rule covers the whole
boundary between them; each cell must come out rectangular.  A word belongs
to the cell holding its centre.  The reconstruction refuses (returns a
reason) whenever the page looks unlike a cleanly ruled table: no closed
frame, a rule running through a word (text shifted over a ruling, a stray
rule), a word sticking out of its cell, or a cell whose words fall into
separate groups with a gap between them (a ruling that should be there is
missing, so two cells read as one).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from duocthu_ingest.domain.model import BBox
from duocthu_ingest.domain.tables import RawCell, Word

SNAP = 1.0  # points: rule positions closer than this are one lattice line
INSIDE = 0.6  # points a word box may touch past its cell's rule
CROSS = 0.8  # points a rule must reach into a word box to run through it
GAP_FACTOR = 1.6  # a gap wider than this many word heights (or line heights) splits a cell's text


def _lattice(values: Sequence[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if out and v - out[-1] <= SNAP:
            continue
        out.append(v)
    return out


def _merged(runs: Sequence[tuple[float, float, float]]) -> dict[float, list[tuple[float, float]]]:
    """Collinear rule pieces (position, start, end) merged into covered intervals per snapped position."""
    by_pos: dict[float, list[tuple[float, float]]] = {}
    for pos, a, b in sorted(runs):
        key = next((k for k in by_pos if abs(k - pos) <= SNAP), pos)
        spans = by_pos.setdefault(key, [])
        if spans and a <= spans[-1][1] + SNAP:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return by_pos


def _covered(lines: dict[float, list[tuple[float, float]]], pos: float, a: float, b: float) -> bool:
    for key, spans in lines.items():
        if abs(key - pos) <= SNAP:
            return any(s <= a + SNAP and e >= b - SNAP for s, e in spans)
    return False


def reconstruct(rules: Sequence[BBox], words: Sequence[Word]) -> list[RawCell] | str:
    """Cells of the ruled table drawn by ``rules`` (line boxes) with ``words`` placed in them, or why not."""
    h_runs = [((r[1] + r[3]) / 2, r[0], r[2]) for r in rules if r[2] - r[0] >= r[3] - r[1]]
    v_runs = [((r[0] + r[2]) / 2, r[1], r[3]) for r in rules if r[2] - r[0] < r[3] - r[1]]
    if len(h_runs) < 2 or len(v_runs) < 2:
        return "fewer than two horizontal and two vertical rules"
    hs, vs = _merged(h_runs), _merged(v_runs)
    ys, xs = _lattice([p for p, _, _ in h_runs]), _lattice([p for p, _, _ in v_runs])
    nrows, ncols = len(ys) - 1, len(xs) - 1
    if not (_covered(hs, ys[0], xs[0], xs[-1]) and _covered(hs, ys[-1], xs[0], xs[-1])
            and _covered(vs, xs[0], ys[0], ys[-1]) and _covered(vs, xs[-1], ys[0], ys[-1])):
        return "the outer frame is not closed"
    parent = list(range(nrows * ncols))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for r in range(nrows):
        for c in range(ncols):
            if c + 1 < ncols and not _covered(vs, xs[c + 1], ys[r], ys[r + 1]):
                parent[find(r * ncols + c)] = find(r * ncols + c + 1)
            if r + 1 < nrows and not _covered(hs, ys[r + 1], xs[c], xs[c + 1]):
                parent[find(r * ncols + c)] = find((r + 1) * ncols + c)
    groups: dict[int, list[tuple[int, int]]] = {}
    for r in range(nrows):
        for c in range(ncols):
            groups.setdefault(find(r * ncols + c), []).append((r, c))
    for pos, a, b in [*h_runs, *v_runs]:
        horizontal = (pos, a, b) in h_runs
        for w in words:
            x0, y0, x1, y1 = w.bbox
            if horizontal and y0 + CROSS < pos < y1 - CROSS and a < x1 - CROSS and b > x0 + CROSS:
                return f"a horizontal rule at y={pos:.1f} runs through {w.text!r}"
            if not horizontal and x0 + CROSS < pos < x1 - CROSS and a < y1 - CROSS and b > y0 + CROSS:
                return f"a vertical rule at x={pos:.1f} runs through {w.text!r}"
    cells: list[RawCell] = []
    taken: set[int] = set()
    for members in groups.values():
        r0, c0 = min(r for r, _ in members), min(c for _, c in members)
        r1, c1 = max(r for r, _ in members) + 1, max(c for _, c in members) + 1
        if len(members) != (r1 - r0) * (c1 - c0):
            return f"the cell at r{r0}c{c0} is not a rectangle"
        box = (xs[c0], ys[r0], xs[c1], ys[r1])
        mine = [i for i, w in enumerate(words) if _centre_in(w.bbox, box)]
        for i in mine:
            if not _within(words[i].bbox, box):
                return f"{words[i].text!r} sticks out of the cell at r{r0}c{c0}"
        taken.update(mine)
        text = _cell_text([words[i] for i in mine])
        if text is None:
            return f"the text of the cell at r{r0}c{c0} falls apart (a ruling missing?)"
        cells.append(RawCell(r0, c0, r1 - r0, c1 - c0, box, text))
    inside = [i for i, w in enumerate(words) if _centre_in(w.bbox, (xs[0], ys[0], xs[-1], ys[-1]))]
    if set(inside) - taken:
        return "words inside the frame but in no cell"
    return sorted(cells, key=lambda c: (c.row, c.col))


def _centre_in(b: BBox, box: BBox) -> bool:
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return box[0] < cx < box[2] and box[1] < cy < box[3]


def _within(b: BBox, box: BBox) -> bool:
    return b[0] >= box[0] - INSIDE and b[1] >= box[1] - INSIDE and b[2] <= box[2] + INSIDE and b[3] <= box[3] + INSIDE


def _cell_text(words: Sequence[Word]) -> str | None:
    """Words in reading order (lines by centre height, then x); ``None`` when they form separate groups."""
    lines: list[list[Word]] = []
    for w in sorted(words, key=lambda w: ((w.bbox[1] + w.bbox[3]) / 2, w.bbox[0])):
        cy = (w.bbox[1] + w.bbox[3]) / 2
        if lines and abs(cy - (lines[-1][0].bbox[1] + lines[-1][0].bbox[3]) / 2) <= 0.3 * (w.bbox[3] - w.bbox[1]):
            lines[-1].append(w)
        else:
            lines.append([w])
    for i, line in enumerate(lines):
        line.sort(key=lambda w: w.bbox[0])
        height = max(w.bbox[3] - w.bbox[1] for w in line)
        for left, right in itertools.pairwise(line):
            if right.bbox[0] - left.bbox[2] > GAP_FACTOR * height:
                return None
        if i and line[0].bbox[1] - max(w.bbox[3] for w in lines[i - 1]) > GAP_FACTOR * height:
            return None
        if i and abs(line[0].bbox[0] - lines[i - 1][0].bbox[0]) > height:
            return None  # wrapped lines of one cell start at the same left edge
    return " ".join(w.text for line in lines for w in line)
