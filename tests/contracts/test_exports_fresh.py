"""The committed JSON Schema and AsyncAPI files match the contracts."""

from __future__ import annotations

import json

from duocthu_cli.export import contracts as export
from duocthu_contracts.messages import ALL_MESSAGES


def test_exported_schemas_are_up_to_date() -> None:
    stale = export.stale_files()
    assert not stale, f"run `duocthu contracts export`; stale: {[p.name for p in stale]}"


def test_every_message_has_a_schema_file_and_an_asyncapi_channel() -> None:
    names = {p.name for p in export.SCHEMAS_DIR.glob("*.json")}
    document = json.loads(export.ASYNCAPI_PATH.read_text(encoding="utf-8"))
    schemas = set(document["components"]["schemas"])
    for cls in ALL_MESSAGES:
        name, _, version = cls.SCHEMA.partition("/")
        assert f"{name}.v{version}.json" in names
        assert cls.__name__ in schemas


def test_a_changed_contract_is_detected(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    original = export.json_schemas

    def altered() -> dict[str, dict[str, object]]:
        docs = original()
        first = sorted(docs)[0]
        docs[first] = {**docs[first], "title": "changed"}
        return docs  # type: ignore[return-value]

    monkeypatch.setattr(export, "json_schemas", altered)
    assert export.stale_files()
