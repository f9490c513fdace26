"""Lines and reading order on a page (seed 003 §5.2).

The raw block order of the PDF is not trusted: some pages draw the right
column before the left one.  Spans are grouped into visual lines by
geometry only, each line is classified ``full_width`` / ``left`` / ``right``,
and the page is read band by band (a full-width line closes a band), left
column before right column, top to bottom inside each.  Paragraph starts are
read from the geometry too: a first-line indent, a short previous line, or a
larger vertical gap.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_ingest.domain.model import BBox, BlockMarker, Column, Line, Span, StreamItem

SIDE_TOLERANCE = 4.0  # points a column line may cross the page middle (justification, italics)


def group_lines(spans: Sequence[Span], page: int) -> list[Line]:
    """Visual lines: spans overlapping vertically, split where the horizontal gap is a column gutter."""
    ordered = sorted(spans, key=lambda s: ((s.bbox[1] + s.bbox[3]) / 2, s.bbox[0]))
    rows: list[list[Span]] = []
    for span in ordered:
        cy = (span.bbox[1] + span.bbox[3]) / 2
        placed = False
        for row in reversed(rows[-4:]):
            top = min(s.bbox[1] for s in row)
            bottom = max(s.bbox[3] for s in row)
            height = bottom - top
            if top + 0.25 * height <= cy <= bottom - 0.25 * height:
                row.append(span)
                placed = True
                break
        if not placed:
            rows.append([span])
    rows = _merge_small_rows(rows)
    lines: list[Line] = []
    for row in rows:
        row.sort(key=lambda s: s.bbox[0])
        current = [row[0]]
        for span in row[1:]:
            gap = span.bbox[0] - current[-1].bbox[2]
            if gap > max(6.0, 1.2 * max(span.size, current[-1].size)):
                lines.append(Line(current, page))
                current = [span]
            else:
                current.append(span)
        lines.append(Line(current, page))
    return lines


def _merge_small_rows(rows: list[list[Span]]) -> list[list[Span]]:
    """Superscripts and subscripts (smaller type off the baseline) join the row they touch."""
    def size(row: list[Span]) -> float:
        return max(s.size for s in row)

    def top(row: list[Span]) -> float:
        return min(s.bbox[1] for s in row)

    def bottom(row: list[Span]) -> float:
        return max(s.bbox[3] for s in row)

    merged: list[list[Span]] = []
    for row in rows:
        host = None
        for other in merged[-3:]:
            small, big = (row, other) if size(row) < size(other) else (other, row)
            touching = min(bottom(row), bottom(other)) - max(top(row), top(other)) > 0
            near = any(abs(a.bbox[0] - b.bbox[2]) < 2 or abs(b.bbox[0] - a.bbox[2]) < 2 for a in small for b in big)
            if size(small) <= 0.85 * size(big) and touching and near:
                host = other
                break
        if host is None:
            merged.append(row)
        else:
            host.extend(row)
    return merged


def classify(box: BBox, middle: float) -> Column:
    x0, _, x1, _ = box
    if x1 <= middle + SIDE_TOLERANCE:
        return Column.LEFT
    if x0 >= middle - SIDE_TOLERANCE:
        return Column.RIGHT
    return Column.FULL_WIDTH


def reading_order(lines: Sequence[Line], markers: Sequence[BlockMarker], middle: float) -> list[StreamItem]:
    """Bands split at full-width items; inside a band: left column, then right column, each by y."""
    for line in lines:
        line.column = classify(line.bbox, middle)
        for span in line.spans:
            span.column = line.column
    items: list[StreamItem] = [*lines, *markers]
    items.sort(key=lambda it: (_box(it)[1], _box(it)[0]))
    ordered: list[StreamItem] = []
    band: list[StreamItem] = []

    def flush() -> None:
        left = [it for it in band if _column(it) is not Column.RIGHT]
        right = [it for it in band if _column(it) is Column.RIGHT]
        ordered.extend(sorted(left, key=lambda it: _box(it)[1]))
        ordered.extend(sorted(right, key=lambda it: _box(it)[1]))
        band.clear()

    for item in items:
        if _column(item) is Column.FULL_WIDTH:
            flush()
            ordered.append(item)
        else:
            band.append(item)
    flush()
    return ordered


class ParagraphMarker:
    """Sets ``paragraph_start`` along the cross-page stream, one page at a time.

    A line starts a paragraph when it is indented from its column's left
    margin, when the line before it (wherever it was: a paragraph continues
    across columns and pages) stopped short of its column's right margin, or
    when a larger vertical gap separates them in the same column.  A block
    (table, formula) between two lines ends the paragraph before it.
    """

    def __init__(self, *, sticky_margins: bool = False) -> None:
        self.previous: Line | None = None
        self.previous_right = 0.0
        # sticky: column edges carry over from page to page (back-index pages of short lines keep the
        # margins of the index's first pages); body pages use their own, so a page range parses alike
        self.sticky = sticky_margins
        self.margins: dict[Column, tuple[float, float]] = {}

    def mark(self, page_items: Sequence[StreamItem]) -> None:
        margins = self.margins if self.sticky else {}
        for item in page_items:
            if isinstance(item, Line):
                box = item.bbox
                lo, hi = margins.get(item.column, (box[0], box[2]))
                margins[item.column] = (min(lo, box[0]), max(hi, box[2]))
        for item in page_items:
            if not isinstance(item, Line):
                self.previous = None
                continue
            size = item.size or 10.0
            box = item.bbox
            left, right = margins[item.column]
            previous = self.previous
            if previous is None:
                item.paragraph_start = True
            else:
                pbox = previous.bbox
                indent = box[0] - left >= 0.8 * size
                # the previous line stopped short although this line's first word would have fitted there
                room = self.previous_right - pbox[2]
                short = room > 1.5 * size and room > _first_word_width(item) + 0.5 * size
                short = short and not _starts_lowercase(item)
                same_column = previous.page == item.page and previous.column == item.column and box[1] > pbox[1]
                gap = same_column and box[1] - pbox[3] > 0.8 * size
                item.paragraph_start = indent or short or gap
            self.previous, self.previous_right = item, right


def _first_word_width(line: Line) -> float:
    span = next((s for s in line.spans if s.text.strip()), None)
    if span is None:
        return 0.0
    text = span.text.lstrip()
    word = text.split(" ", 1)[0]
    return (span.bbox[2] - span.bbox[0]) * len(word) / max(len(text), 1)


def _starts_lowercase(line: Line) -> bool:
    text = "".join(s.text for s in line.spans).lstrip()
    return bool(text) and text[0].islower()


def _box(item: StreamItem) -> BBox:
    return item.bbox


def _column(item: StreamItem) -> Column:
    return item.column
