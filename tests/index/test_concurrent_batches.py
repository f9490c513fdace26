"""A replica's stage hands it several corpus batches at once: applying them side by side must not let two
batches of one release both pass the ledger check (here: vectors of two embedding models)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from duocthu_retrieval.adapters.edge_index import EdgeIndex
from duocthu_retrieval.application.maintenance import IndexMaintenance
from duocthu_retrieval.settings import RetrievalSettings
from tests.fixtures.index import IndexCorpus


async def test_two_batches_from_two_models_applied_at_once_fail_their_release(
        tmp_path: Path, index_corpus: IndexCorpus) -> None:
    index = EdgeIndex.open(RetrievalSettings(var_dir=tmp_path, qdrant_path=tmp_path / "qdrant"))
    try:
        maintenance = IndexMaintenance(index, index_corpus.model, instance_id="t", alias="duocthu")
        other = index_corpus.model.model_copy(update={"model_id": "some-other-model"})
        first = index_corpus.batches("rel-race", batch_size=16)[0]
        second = index_corpus.batches("rel-race", batch_size=16, model=other)[1]
        done = await asyncio.gather(maintenance.apply(first), maintenance.apply(second))
        completions = [c for results in done for c in results]
        assert [c.payload.status for c in completions] == ["failed"]
        assert "different models" in (completions[0].payload.error or "")
    finally:
        await index.close()
