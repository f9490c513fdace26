"""An in-process index of a formulary PDF: the ingest pipeline, the embedder and the indexer, no bus.

For measurements that must not go through a running stack (the bus
overhead, the routing eval): the same code the services run, in one process,
over a private Qdrant directory.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from duocthu_ingest import IngestRequest, IngestResult, batch_messages, embed_chunks, run_ingest
from duocthu_providers.embedding.factory import make_embedder, make_sparse_encoder, space_identity
from duocthu_providers.embedding.port import Embedder
from duocthu_retrieval import Indexer, RetrievalSettings, Retriever, VectorIndex, open_index
from duocthu_text.sparse import SparseEncoder


@dataclass
class SampleIndex:
    result: IngestResult
    index: VectorIndex
    embedder: Embedder
    sparse: SparseEncoder

    @property
    def retriever(self) -> Retriever:
        return Retriever(self.index, self.embedder, self.sparse)

    async def close(self) -> None:
        await self.index.close()


async def build_sample_index(pdf: Path, var_dir: Path) -> SampleIndex:
    """Ingest ``pdf`` (with its transcription sidecar when present), embed (document cache under ``var_dir``), index."""
    sidecar = pdf.with_name(f"{pdf.stem}.transcriptions.json")
    result = run_ingest(IngestRequest(pdf=pdf, transcriptions=sidecar if sidecar.is_file() else None))
    private = Path(tempfile.mkdtemp(prefix="duocthu-index-"))  # never the stack's own index, which it locks
    settings = RetrievalSettings(var_dir=var_dir, qdrant_path=private / "qdrant", edge_dir=private / "edge")
    embedder = make_embedder(settings)
    sparse = make_sparse_encoder()
    embedded = embed_chunks(result.chunks, embedder, sparse)
    index = open_index(settings)
    messages = batch_messages(embedded, catalog=result.catalog, model=space_identity(embedder, sparse),
                              release_id="local", job_id="local", part_index=0, part_count=1,
                              corpus_sha256=result.corpus_sha256, source_sha256=result.source_sha256,
                              max_bytes=4_000_000, correlation_id="local", causation_id=None)
    indexer = Indexer(index)
    for message in messages:
        await indexer.apply(message)
    return SampleIndex(result, index, embedder, sparse)
