"""Planning the jobs of one release: a book split into page-range parts, each owned by one worker replica."""

from __future__ import annotations

import uuid
from pathlib import Path

from duocthu_contracts.messages import IngestJobRequestedPayload


def split_pages(page_count: int, parts: int) -> list[tuple[int, int]]:
    """Consecutive physical page ranges, one per part (each part owns the monographs titled in it)."""
    parts = max(1, min(parts, page_count))
    size = -(-page_count // parts)
    return [(start, min(start + size, page_count) - 1) for start in range(0, page_count, size)]


def part_jobs(pdf: Path, page_count: int, release_id: str, parts: int,
              transcriptions: Path | None) -> list[IngestJobRequestedPayload]:
    """The jobs of a release: the whole book, or ``parts`` page ranges of it."""
    ranges: list[tuple[int, int] | None] = list(split_pages(page_count, parts)) if parts > 1 else [None]
    return [IngestJobRequestedPayload(
        job_id=uuid.uuid4().hex, release_id=release_id, pdf_uri=str(pdf.resolve()),
        transcriptions_uri=str(transcriptions.resolve()) if transcriptions else None, page_range=rng,
        part_index=index, part_count=len(ranges)) for index, rng in enumerate(ranges)]
