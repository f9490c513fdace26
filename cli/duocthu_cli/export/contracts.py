"""Export JSON Schema for every message and an AsyncAPI document of the topology.

The exported files are committed next to the contracts; a test regenerates
them and fails when they are stale, so a contract change is always visible
in review as a schema diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duocthu_contracts
from duocthu_contracts import topology as t
from duocthu_contracts.envelope import Message
from duocthu_contracts.http import ErrorResponse, RagQueryRequest, RagQueryResponse
from duocthu_contracts.messages import ALL_MESSAGES
from duocthu_contracts.topology import Reading
from duocthu_runtime import produced_by, readers_of, wildcard_subject

CONTRACTS_DIR = Path(duocthu_contracts.__file__).parent
SCHEMAS_DIR = CONTRACTS_DIR / "schemas"
ASYNCAPI_PATH = CONTRACTS_DIR / "asyncapi.json"

#: The readings AsyncAPI shows as a service receiving a message (requests are not part of the document).
_RECEIVING = (Reading.DURABLE, Reading.SUBSCRIPTION, Reading.FOLLOW)


def subject_of(cls: type[Message]) -> str:
    """The subject as AsyncAPI shows it: an addressed message ends with the ``{origin}`` parameter."""
    return wildcard_subject(cls, "{origin}")


def service_edges(service: str) -> tuple[list[type[Message]], list[type[Message]]]:
    """What ``service`` receives and what it sends, as the topology table says (bus messages only)."""
    identity = t.SERVICE_IDENTITIES[service]
    receives: list[type[Message]] = []
    for reading in _RECEIVING:
        for flow, _ in readers_of(identity, reading):
            if issubclass(flow.message, Message) and flow.message not in receives:
                receives.append(flow.message)
    sends = [f.message for f in produced_by(identity) if issubclass(f.message, Message)]
    return receives, sends


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
    for service in t.SERVICE_IDENTITIES:
        receives, sends = service_edges(service)
        for position, model in enumerate(receives):

            async def handler(message: Any) -> None:  # pragma: no cover - never called
                return None

            handler.__annotations__ = {"message": model, "return": None}
            handler.__name__ = f"{service}_{model.__name__}"
            listens = subject_of(model)
            subscriber = broker.subscriber(
                listens, title=f"{service}:{listens}", description=f"{service} consumes {model.SCHEMA}"
            )
            for out in sends if position == 0 else ():  # what a service sends, declared once
                subject = subject_of(out)
                handler = broker.publisher(
                    subject, schema=out, title=f"{service}:{subject}:{out.SCHEMA}",
                    description=f"{service} publishes {out.SCHEMA}",
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
