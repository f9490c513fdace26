"""Export JSON Schema for every message and an AsyncAPI document of the topology.

The exported files are committed next to the contracts; a test regenerates
them and fails when they are stale, so a contract change is always visible
in review as a schema diff.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duocthu_contracts
from duocthu_contracts.envelope import Message
from duocthu_contracts.http import ErrorResponse, RagQueryRequest, RagQueryResponse
from duocthu_contracts.messages import (
    ALL_MESSAGES,
    AnswerDrafted,
    AnswerRejected,
    CorpusBatchEmbedded,
    CorpusReleaseCompleted,
    EvidenceRetrieved,
    IngestJobProgress,
    IngestJobRequested,
    IngestJobResult,
    TurnCompleted,
    TurnProgress,
    TurnRequested,
    TurnUnderstood,
)

CONTRACTS_DIR = Path(duocthu_contracts.__file__).parent
SCHEMAS_DIR = CONTRACTS_DIR / "schemas"
ASYNCAPI_PATH = CONTRACTS_DIR / "asyncapi.json"


@dataclass(frozen=True)
class Edge:
    """One consumer: ``stage`` reads ``consumes`` and may publish ``publishes`` (subjects come from the classes)."""

    stage: str
    consumes: type[Message]
    publishes: tuple[type[Message], ...]


TOPOLOGY: tuple[Edge, ...] = (
    Edge("understanding", TurnRequested, (TurnUnderstood, TurnCompleted, TurnProgress)),
    Edge("retrieval", TurnUnderstood, (EvidenceRetrieved, TurnCompleted, TurnProgress)),
    Edge("generation", EvidenceRetrieved, (AnswerDrafted, TurnCompleted, TurnProgress)),
    Edge("generation", AnswerRejected, (AnswerDrafted, TurnCompleted)),
    Edge("verifier", AnswerDrafted, (AnswerRejected, TurnCompleted, TurnProgress)),
    Edge("gateway", TurnCompleted, (TurnRequested,)),
    Edge("gateway", TurnProgress, ()),
    Edge("ingest-worker", IngestJobRequested, (CorpusBatchEmbedded, IngestJobResult, IngestJobProgress)),
    Edge("gateway", IngestJobProgress, ()),
    Edge("retrieval", CorpusBatchEmbedded, (CorpusReleaseCompleted,)),
    Edge("understanding", CorpusReleaseCompleted, ()),
)


def subject_of(cls: type[Message]) -> str:
    """The subject as AsyncAPI shows it: an addressed message ends with the ``{origin}`` parameter."""
    return f"{cls.SUBJECT}.{{origin}}" if cls.ADDRESSED else cls.SUBJECT


HTTP_MODELS: dict[str, type[Any]] = {
    "http.rag_query_request": RagQueryRequest,
    "http.rag_query_response": RagQueryResponse,
    "http.error_response": ErrorResponse,
}


def _file_name(schema: str) -> str:
    name, _, version = schema.partition("/")
    return f"{name}.v{version}.json"


def json_schemas() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for cls in ALL_MESSAGES:
        out[_file_name(cls.SCHEMA)] = cls.model_json_schema(by_alias=True, mode="serialization")
    for name, model in HTTP_MODELS.items():
        out[f"{name}.json"] = model.model_json_schema(by_alias=True, mode="serialization")
    return out


def asyncapi_document() -> dict[str, Any]:
    """Declare the topology on an (unconnected) FastStream broker and let it write AsyncAPI."""
    from faststream.nats import NatsBroker
    from faststream.specification import AsyncAPI

    broker = NatsBroker("nats://127.0.0.1:4222")
    declared: set[tuple[str, str, str]] = set()
    for edge in TOPOLOGY:
        model = edge.consumes

        async def handler(message: Any) -> None:  # pragma: no cover - never called
            return None

        handler.__annotations__ = {"message": model, "return": None}
        handler.__name__ = f"{edge.stage}_{model.__name__}"
        listens = subject_of(model)
        subscriber = broker.subscriber(
            listens, title=f"{edge.stage}:{listens}", description=f"{edge.stage} consumes {model.SCHEMA}"
        )
        for out in edge.publishes:
            subject = subject_of(out)
            if (edge.stage, subject, out.SCHEMA) in declared:
                continue
            declared.add((edge.stage, subject, out.SCHEMA))
            handler = broker.publisher(
                subject, schema=out, title=f"{edge.stage}:{subject}:{out.SCHEMA}",
                description=f"{edge.stage} publishes {out.SCHEMA}",
            )(handler)
        subscriber(handler)
    spec = AsyncAPI(broker, title="duocthu", version="1", description="Message flow of duocthu (DESIGN.md)")
    document: dict[str, Any] = json.loads(spec.to_specification().to_json())
    return document


def _dump(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def rendered() -> dict[Path, str]:
    files = {SCHEMAS_DIR / name: _dump(doc) for name, doc in json_schemas().items()}
    files[ASYNCAPI_PATH] = _dump(asyncapi_document())
    return files


def stale_files() -> list[Path]:
    """Files whose committed content differs from what the contracts generate now."""
    current = rendered()
    stale = [p for p, text in current.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    extra = [p for p in SCHEMAS_DIR.glob("*.json") if p not in current]
    return sorted(stale + extra)


def write() -> list[Path]:
    SCHEMAS_DIR.mkdir(parents=True, exist_ok=True)
    current = rendered()
    for path in SCHEMAS_DIR.glob("*.json"):
        if path not in current:
            path.unlink()
    for path, text in current.items():
        path.write_text(text, encoding="utf-8")
    return sorted(current)
