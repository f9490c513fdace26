"""What text of a chunk is embedded (dense and sparse): the chunk's text under its drug and section.

A chunk's ``text`` is a section body: "Chống chỉ định của metformin?" shares
almost no words with the body of metformin's contraindications, which never
repeats the drug's name or the heading.  Prefixing the printed drug name and
section heading to the *embedding input* (never to the stored or cited text)
lets dense and lexical search see the facet a question names.  Both the
ingest worker (documents) and any re-embedding must use this one function,
or the vector space silently changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.corpus import ChunkRecord, EmbeddedChunk
from duocthu_providers.embedding.port import Embedder
from duocthu_text.sparse import SparseEncoder

#: Part of the vector-space identity (``space_identity`` appends it to ``input_kind``): a new recipe
#: is a new vector space, and the manifest gate refuses an index built with another one.
DOCUMENT_INPUT_RECIPE = "drug-section-header/v1"


def document_input(chunk: ChunkRecord) -> str:
    return f"{chunk.drug_name} — {chunk.section_display_name}\n{chunk.text}"


def embed_chunks(chunks: Sequence[ChunkRecord], embedder: Embedder, sparse: SparseEncoder) -> list[EmbeddedChunk]:
    """Dense and sparse vectors of chunks, both from :func:`document_input` (the one document-side recipe)."""
    inputs = [document_input(chunk) for chunk in chunks]
    dense = embedder.embed_documents(inputs)
    return [EmbeddedChunk(chunk=chunk, dense=vector, sparse=sparse.encode_document(text))
            for chunk, vector, text in zip(chunks, dense, inputs, strict=True)]
