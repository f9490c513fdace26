"""Sections -> chunk schema v4 (seed 003 §9; ``duocthu_contracts.corpus.ChunkRecord``).

The parent unit is one section of one drug.  A section of at most
``ceiling`` tokens is one chunk.  A longer one is packed greedily from
sentence atoms up to ``target`` tokens, each next chunk starting ``overlap``
tokens back, and a tail that still fits under the ceiling is kept with the
chunk before it.  A continuation chunk repeats the population/route labels in
force at its first atom: ``text`` = carried labels + source, ``source_text``
= the exact source slice, ``context_labels`` = what was repeated, so the
repetition is never mistaken for source.  No chunk ends on a bare label.

Tables and formulas never enter prose: each quarantined block becomes one
descriptor chunk built only from verified metadata (drug, section, kind,
printed page) with its crop attachment, and every prose chunk of a section
holding a block is flagged ``has_quarantined_content`` (retrieval answers
VERIFY_PDF for it).  A table whose two independent extractions agreed in
every cell (issue 19, ``domain.tables``) is released instead as one
``table_row`` chunk per body row: caption, then each cell behind its header
path, with the table's crop as the row's source region.  A row is verified
text of its own, so it is not flagged even when its section also holds a
quarantined formula (that formula keeps its descriptor and its crop).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence

from duocthu_contracts.corpus import Attachment, BlockKind, ChunkKind, ChunkRecord, PageRegion
from duocthu_contracts.sections import SECTION_HEADINGS, SectionKey
from duocthu_ingest.domain.atoms import Atom, TokenCounter, label_contexts, sentence_atoms, split_long_atom
from duocthu_ingest.domain.config import ChunkBudget, IngestConfig
from duocthu_ingest.domain.model import BBox, Monograph, QuarantineBlock, Section, TextPiece, union
from duocthu_ingest.domain.page_map import PageMap

ATC_PATTERN = re.compile(r"\b[A-Z]\d{2}[A-Z]{2}\d{2}\b")
BLOCK_KIND_VI = {BlockKind.TABLE: "bảng", BlockKind.FORMULA: "công thức"}
DESCRIPTOR_TAIL = "Nội dung chỉ tra cứu được trên ảnh trang gốc, không trích dẫn được dưới dạng văn bản."


def atc_codes(monograph: Monograph) -> list[str]:
    section = monograph.section(SectionKey.MA_ATC)
    return list(dict.fromkeys(ATC_PATTERN.findall(section.text))) if section else []


def pack(text: str, config: IngestConfig, count: TokenCounter) -> list[tuple[int, int, list[str]]]:
    """Cut ``text`` into ``(start, end, carried_labels)`` slices per the budget."""
    budget: ChunkBudget = config.budget
    stripped = text.strip()
    if not stripped:
        return []
    if count(text) <= budget.ceiling:
        start = text.index(stripped[0])
        return [(start, start + len(stripped), [])]
    raw_atoms, paras = sentence_atoms(text, config)
    atoms: list[Atom] = [piece for atom in raw_atoms for piece in split_long_atom(text, atom, budget.target, count)]
    tokens = [count(text[a.start:a.end]) for a in atoms]
    contexts = label_contexts(atoms, paras, config)
    slices: list[tuple[int, int, list[str]]] = []
    first, n = 0, len(atoms)
    while first < n:
        labels: list[str] = []
        if slices:
            ctx = contexts[first]
            labels = list(ctx.scope)
            if ctx.paragraph and not atoms[first].first_in_paragraph:
                labels.append(ctx.paragraph)
        room = budget.target - (count(" ".join(labels)) + 1 if labels else 0)
        last, total = first, 0
        while last < n and (last == first or total + tokens[last] <= room):
            total += tokens[last]
            last += 1
        if last < n and total + sum(tokens[last:]) <= budget.ceiling - (budget.target - room):
            last = n  # keep a short tail with this chunk rather than leaving a crumb
        while last - 1 > first and last < n and text[atoms[last - 1].start:atoms[last - 1].end].rstrip().endswith(":"):
            last -= 1  # never end on a bare label: it moves to the next chunk
        slices.append((atoms[first].start, atoms[last - 1].end, labels))
        if last >= n:
            break
        nxt, carried = last, 0
        while nxt - 1 > first and carried + tokens[nxt - 1] <= budget.overlap:
            carried += tokens[nxt - 1]
            nxt -= 1
        first = nxt
    return slices


def regions(pieces: Sequence[TextPiece], start: int, end: int, page_map: PageMap) -> list[PageRegion]:
    """Crop regions of ``[start, end)``: one per page and column run (x-overlapping pieces merge)."""
    groups: list[tuple[int, list[BBox]]] = []
    for piece in pieces:
        if piece.end <= start or piece.start >= end:
            continue
        if groups and groups[-1][0] == piece.page and _x_overlap(union(groups[-1][1]), piece.bbox):
            groups[-1][1].append(piece.bbox)
        else:
            groups.append((piece.page, [piece.bbox]))
    out: list[PageRegion] = []
    for page, boxes in groups:
        printed = page_map.printed_page(page)
        if printed is not None:
            box = union(boxes)
            out.append(PageRegion(physical_page=page, printed_page=printed, bbox=tuple(round(v, 2) for v in box)))
    return out


def _x_overlap(a: BBox, b: BBox) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0


def _page_ranges(pages: Sequence[int], page_map: PageMap) -> tuple[tuple[int, int], tuple[int, int]]:
    physical = (min(pages), max(pages))
    printed = [page_map.printed_page(p) for p in pages]
    if any(p is None for p in printed):
        return physical, (0, 0)  # no valid printed page: the gate blocks the release
    known = [p for p in printed if p is not None]
    return physical, (min(known), max(known))


def attachment(block: QuarantineBlock, page_map: PageMap) -> Attachment | None:
    printed = page_map.printed_page(block.page)
    if printed is None or block.section_key is None:
        return None
    return Attachment(block_id=block.block_id, kind=block.kind, section_key=block.section_key,
                      physical_page=block.page, printed_page=printed,
                      bbox=tuple(round(v, 2) for v in block.bbox))


def descriptor_text(monograph: Monograph, section: Section, block: QuarantineBlock, ordinal: str,
                    printed: int | None) -> str:
    """Only verified metadata: drug, section, kind, printed page — never the block's own text."""
    kind = BLOCK_KIND_VI[block.kind] + ordinal
    page = f"trang {printed}" if printed is not None else "trang không xác định"
    return f"{monograph.drug_name} — {SECTION_HEADINGS[section.key]} — {kind}, {page}. {DESCRIPTOR_TAIL}"


def row_text(caption: str, pairs: Sequence[tuple[str, str]]) -> str:
    """``Bảng 1. … — eGFR (ml/phút/1,73 m²): 45 – 59; Metformin hydroclorid › Liều khởi đầu: …; …``."""
    return f"{caption} — " + "; ".join(f"{label}: {value}" if label else value for label, value in pairs)


def table_rows(block: QuarantineBlock) -> list[str]:
    """The row texts of a released table (none for a quarantined one)."""
    if not block.released or block.table is None or block.table.grid is None:
        return []
    return [row_text(block.table.caption, pairs) for pairs in block.table.grid.body_rows()]


def chunk_monograph(monograph: Monograph, blocks: Mapping[str, QuarantineBlock], page_map: PageMap,
                    config: IngestConfig, count: TokenCounter) -> list[ChunkRecord]:
    codes = atc_codes(monograph)
    records: list[ChunkRecord] = []
    for section in monograph.sections:
        released = [blocks[b] for b in section.block_ids if blocks[b].released]
        section_blocks = [blocks[b] for b in section.block_ids if not blocks[b].released]
        attachments = [a for a in (attachment(b, page_map) for b in section_blocks) if a is not None]
        slices = pack(section.text, config, count)
        rows = [(b, text) for b in released for text in table_rows(b)]
        part_count = max(1, len(slices) + len(section_blocks) + len(rows))
        common = {
            "drug_id": monograph.drug_id, "drug_name": monograph.drug_name, "section_key": section.key,
            "section_display_name": SECTION_HEADINGS[section.key], "heading_physical_page": section.heading_page,
            "atc_codes": codes, "part_count": part_count,
        }
        for index, (start, end, labels) in enumerate(slices):
            source = section.text[start:end]
            text = " ".join([*labels, source]) if labels else source
            pages = sorted({p.page for p in section.pieces if p.start < end and p.end > start}) or [section.heading_page]
            physical, printed = _page_ranges(pages, page_map)
            tokens = count(text)
            records.append(ChunkRecord(
                chunk_id=f"{monograph.drug_id}__{section.key}__{index}", text=text, source_text=source,
                context_labels=labels, source_page_range=physical, printed_page_range=printed, part_index=index,
                est_tokens=tokens, oversized=tokens > config.budget.ceiling, chunk_kind=ChunkKind.PROSE,
                attachments=attachments, has_quarantined_content=bool(section_blocks),
                source_regions=regions(section.pieces, start, end, page_map), **common,
            ))
        for offset, block in enumerate(section_blocks):
            index = len(slices) + offset
            ordinal = f" {offset + 1}/{len(section_blocks)}" if len(section_blocks) > 1 else ""
            printed_page = page_map.printed_page(block.page)
            text = descriptor_text(monograph, section, block, ordinal, printed_page)
            own = attachment(block, page_map)
            pr = (printed_page, printed_page) if printed_page is not None else (0, 0)
            region = [PageRegion(physical_page=own.physical_page, printed_page=own.printed_page, bbox=own.bbox)] if own else []
            tokens = count(text)
            records.append(ChunkRecord(
                chunk_id=f"{monograph.drug_id}__{section.key}__{index}", text=text, source_text=text,
                source_page_range=(block.page, block.page), printed_page_range=pr, part_index=index,
                est_tokens=tokens, oversized=tokens > config.budget.ceiling, chunk_kind=ChunkKind.BLOCK_DESCRIPTOR,
                attachments=[own] if own else [], has_quarantined_content=True, source_regions=region,
                **common,
            ))
        for offset, (block, text) in enumerate(rows):
            index = len(slices) + len(section_blocks) + offset
            printed_page = page_map.printed_page(block.page)
            pr = (printed_page, printed_page) if printed_page is not None else (0, 0)
            region = [PageRegion(physical_page=block.page, printed_page=printed_page,
                                 bbox=tuple(round(v, 2) for v in block.bbox))] if printed_page is not None else []
            tokens = count(text)
            records.append(ChunkRecord(
                chunk_id=f"{monograph.drug_id}__{section.key}__{index}", text=text, source_text=text,
                source_page_range=(block.page, block.page), printed_page_range=pr, part_index=index,
                est_tokens=tokens, oversized=tokens > config.budget.ceiling, chunk_kind=ChunkKind.TABLE_ROW,
                source_regions=region, **common,  # verified text: not flagged even beside a quarantined formula
            ))
    return records


def records_sha256(chunks: Sequence[ChunkRecord]) -> str:
    """The normalised corpus hash: sorted-key JSON of each record, one per line, in emission order."""
    lines = [json.dumps(c.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) for c in chunks]
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
