"""Decode a message only when its schema name and major version are known.

A consumer that meets a new major version must not guess at its meaning: it
rejects the message with a counted, logged error and carries on (never a
crash).  Minor versions are additive, so ``x/1.3`` is read as ``x/1``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import TypeVar

from pydantic import ValidationError

from duocthu_contracts.envelope import Message
from duocthu_runtime.errors import MessageRejected

M = TypeVar("M", bound=Message)


@dataclass(frozen=True)
class SchemaName:
    name: str
    major: int
    minor: int

    @classmethod
    def parse(cls, value: str) -> SchemaName:
        name, sep, version = value.rpartition("/")
        major, _, minor = version.partition(".")
        if not sep or not name or not major.isdigit() or (minor and not minor.isdigit()):
            raise MessageRejected("invalid_schema_name", f"schema {value!r} is not '<name>/<major>[.<minor>]'")
        return cls(name, int(major), int(minor or 0))


def decode(raw: bytes, model: type[M]) -> M:
    """Parse ``raw`` as ``model`` after checking its schema name and major version.

    The common case is one pass: pydantic parses and validates the bytes
    (``model_validate_json``, no intermediate dict), then the schema it carried
    is checked.  Only a message that fails that — or carries another schema —
    takes the careful path, which says *why* it is refused (not JSON, no schema,
    another schema, an unknown major version, an invalid payload).
    """
    try:
        message = model.model_validate_json(raw)
    except ValidationError:
        return _decode_checked(raw, model)
    got, want = SchemaName.parse(message.schema_), _schema_of(model.SCHEMA)
    if got.name != want.name or got.major != want.major:
        return _decode_checked(raw, model)
    return message


@functools.lru_cache(maxsize=256)
def _schema_of(schema: str) -> SchemaName:
    return SchemaName.parse(schema)


def _decode_checked(raw: bytes, model: type[M]) -> M:
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MessageRejected("invalid_json", str(exc)) from exc
    if not isinstance(document, dict) or not isinstance(document.get("schema"), str):
        raise MessageRejected("missing_schema", "message has no 'schema' field")
    got = SchemaName.parse(document["schema"])
    want = _schema_of(model.SCHEMA)
    if got.name != want.name:
        raise MessageRejected("unexpected_schema", f"expected {want.name}, got {got.name}")
    if got.major != want.major:
        raise MessageRejected(
            "unknown_schema_version", f"{got.name} major version {got.major} (this consumer knows {want.major})"
        )
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise MessageRejected("invalid_message", str(exc)) from exc


def encode(message: Message) -> bytes:
    return message.model_dump_json(by_alias=True).encode()
