"""Ingest worker: a formulary PDF to provenance-preserving chunks with fail-closed gates, embedded and cut into
corpus batches.

The public face: what the ``duocthu`` command, the evals and the benchmarks may use.
"""

from duocthu_ingest.adapters.tokenizer import count_tokens
from duocthu_ingest.application.jobs import part_jobs
from duocthu_ingest.application.pipeline import IngestRequest, IngestResult
from duocthu_ingest.application.publishing import batch_messages, embed_chunks
from duocthu_ingest.domain.chunker import chunk_monograph, records_sha256
from duocthu_ingest.domain.config import DEFAULT_CONFIG, IngestConfig
from duocthu_ingest.domain.model import QuarantineBlock
from duocthu_ingest.domain.tables import RawCell, TableGrid, TableVerdict, resolve
from duocthu_ingest.domain.text import heading_key, ws_normalize
from duocthu_ingest.errors import BadInput, IngestError
from duocthu_ingest.main import build_spec, build_worker, ingest_cli, page_count, run_ingest, submit, submit_all
from duocthu_ingest.settings import IngestSettings

__all__ = [
    "DEFAULT_CONFIG",
    "BadInput",
    "IngestConfig",
    "IngestError",
    "IngestRequest",
    "IngestResult",
    "IngestSettings",
    "QuarantineBlock",
    "RawCell",
    "TableGrid",
    "TableVerdict",
    "batch_messages",
    "build_spec",
    "build_worker",
    "chunk_monograph",
    "count_tokens",
    "embed_chunks",
    "heading_key",
    "ingest_cli",
    "page_count",
    "part_jobs",
    "records_sha256",
    "resolve",
    "run_ingest",
    "submit",
    "submit_all",
    "ws_normalize",
]
