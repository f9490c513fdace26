"""One bar for a release ingested in parts: pages while any part reads, then the chunks embedded."""

from __future__ import annotations

from duocthu_contracts.messages import IngestJobProgressPayload
from duocthu_ingest.application.progress_tally import ProgressTally


def _update(part: int, stage: str, done: int, total: int | None) -> IngestJobProgressPayload:
    return IngestJobProgressPayload(job_id=f"j{part}", release_id="r", part_index=part, stage=stage,  # type: ignore[arg-type]
                                    done=done, total=total)


def test_pages_of_every_part_then_chunks_once_all_parts_embed() -> None:
    tally = ProgressTally(parts=2)
    first = tally.add(_update(0, "parse", 10, 40))
    assert (first.unit, first.done, first.total) == ("pages", 10, None)  # part 1's size is not known yet
    both = tally.add(_update(1, "parse", 5, 30))
    assert (both.unit, both.done, both.total) == ("pages", 15, 70)
    one_embeds = tally.add(_update(0, "embed", 64, 300))
    assert (one_embeds.unit, one_embeds.done, one_embeds.total) == ("pages", 45, 70)  # part 0 read all 40 pages
    all_embed = tally.add(_update(1, "embed", 0, 200))
    assert (all_embed.stage, all_embed.unit, all_embed.done, all_embed.total) == ("embed", "chunks", 64, 500)
    tally.add(_update(1, "embed", 200, 200))
    done = tally.add(_update(0, "done", 300, 300))
    assert (done.done, done.total) == (500, 500)  # "done" carries the part's last count, nothing counted twice
