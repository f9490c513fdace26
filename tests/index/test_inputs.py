"""The document-side recipe: what is embedded, and that the vector space names it."""

from __future__ import annotations

from duocthu_providers.embedding.cache import CachingEmbedder
from duocthu_providers.embedding.factory import space_identity
from duocthu_providers.embedding.inputs import DOCUMENT_INPUT_RECIPE, document_input, embed_chunks
from duocthu_text.sparse import SparseEncoder
from tests.fixtures.index import IndexCorpus


def test_the_input_is_drug_and_heading_over_the_text(index_corpus: IndexCorpus) -> None:
    chunk = index_corpus.chunk("metformin__chong_chi_dinh__0")
    text = document_input(chunk)
    assert text.startswith("METFORMIN — Chống chỉ định\n")
    assert text.endswith(chunk.text)
    assert chunk.text == chunk.source_text  # the stored and cited text is untouched


def test_embed_chunks_uses_the_recipe_for_both_vectors(index_corpus: IndexCorpus, index_embedder: CachingEmbedder,
                                                       sparse_encoder: SparseEncoder) -> None:
    record = index_corpus.chunk("warfarin__chi_dinh__0")
    [embedded] = embed_chunks([record], index_embedder, sparse_encoder)
    assert embedded.dense == index_embedder.embed_documents([document_input(record)])[0]
    assert embedded.sparse == sparse_encoder.encode_document(document_input(record))
    heading_terms = set(sparse_encoder.encode_query("warfarin chỉ định").indices)
    assert heading_terms <= set(embedded.sparse.indices)


def test_the_space_identity_names_recipe_and_sparse_model(index_embedder: CachingEmbedder,
                                                          sparse_encoder: SparseEncoder) -> None:
    ident = space_identity(index_embedder, sparse_encoder)
    assert ident.input_kind == f"passage+{DOCUMENT_INPUT_RECIPE}"
    assert ident.sparse_model == sparse_encoder.model_id
    assert ident.model_id == index_embedder.identity.model_id
