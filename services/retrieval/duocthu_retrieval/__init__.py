"""Retrieval stage: routes A–D and the evidence policy over the vector index it alone writes.

The public face: what the ``duocthu`` command, the benchmarks and the evals
may use.  Everything else is internal: ``domain/`` (pure rules),
``ports.py``, ``application/`` (query and index maintenance),
``adapters/`` (Qdrant, the CORPUS stream, replica requests),
``entrypoints/`` (bus handlers, ``duocthu index``), ``main.py`` (wiring).
"""

from duocthu_retrieval.application.indexing import Indexer
from duocthu_retrieval.application.operations import next_completion, wait_for_status
from duocthu_retrieval.application.query import Retriever, RouteResult
from duocthu_retrieval.domain.evidence_policy import answered_by_rows, decide
from duocthu_retrieval.domain.routing import plan_route
from duocthu_retrieval.domain.search import ScoredChunk, SearchFilter
from duocthu_retrieval.entrypoints.bus import turn_handler
from duocthu_retrieval.errors import IndexUnavailable, OperationFailed, RetrievalUnavailable
from duocthu_retrieval.main import RetrievalReplica, build_spec, index_cli, open_index, replicas
from duocthu_retrieval.ports import Replicas, VectorIndex
from duocthu_retrieval.settings import RetrievalSettings

__all__ = [
    "IndexUnavailable",
    "Indexer",
    "OperationFailed",
    "Replicas",
    "RetrievalReplica",
    "RetrievalSettings",
    "RetrievalUnavailable",
    "Retriever",
    "RouteResult",
    "ScoredChunk",
    "SearchFilter",
    "VectorIndex",
    "answered_by_rows",
    "build_spec",
    "decide",
    "index_cli",
    "next_completion",
    "open_index",
    "plan_route",
    "replicas",
    "turn_handler",
    "wait_for_status",
]
