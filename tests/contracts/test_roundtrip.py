"""Every message survives encode → decode unchanged; unknown major versions are refused."""

from __future__ import annotations

import json

import pytest

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import ALL_MESSAGES, TurnRequested, TurnUnderstood
from duocthu_runtime import MessageRejected, decode, encode
from duocthu_runtime.bus.versioning import SchemaName
from tests.contracts.examples import examples

EXAMPLES = examples()


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=lambda c: c.SCHEMA)
def test_round_trip(cls: type[Message]) -> None:
    original = EXAMPLES[cls]
    raw = encode(original)
    assert json.loads(raw)["schema"] == cls.SCHEMA
    assert decode(raw, cls) == original


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=lambda c: c.SCHEMA)
def test_schema_name_carries_a_version(cls: type[Message]) -> None:
    parsed = SchemaName.parse(cls.SCHEMA)
    assert parsed.major >= 1


def _with_schema(message: Message, schema: str) -> bytes:
    doc = json.loads(encode(message))
    doc["schema"] = schema
    return json.dumps(doc).encode()


def test_unknown_major_version_is_rejected() -> None:
    raw = _with_schema(EXAMPLES[TurnRequested], "rag.turn.requested/2")
    with pytest.raises(MessageRejected) as err:
        decode(raw, TurnRequested)
    assert err.value.reason == "unknown_schema_version"


def test_newer_minor_version_with_extra_fields_is_read() -> None:
    doc = json.loads(_with_schema(EXAMPLES[TurnRequested], "rag.turn.requested/1.4"))
    doc["payload"]["added_in_1_4"] = {"anything": True}
    decoded = decode(json.dumps(doc).encode(), TurnRequested)
    original = EXAMPLES[TurnRequested]
    assert isinstance(original, TurnRequested)
    assert decoded.payload.query == original.payload.query


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"not json", "invalid_json"),
        (b"[1, 2]", "missing_schema"),
        (b'{"schema": "rag.turn.requested"}', "invalid_schema_name"),
        (b'{"schema": "rag.turn.requested/one"}', "invalid_schema_name"),
        (b'{"schema": "rag.turn.requested/1"}', "invalid_message"),
    ],
)
def test_malformed_messages_are_rejected_with_a_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(MessageRejected) as err:
        decode(raw, TurnRequested)
    assert err.value.reason == reason


def test_a_message_of_another_kind_is_rejected() -> None:
    with pytest.raises(MessageRejected) as err:
        decode(encode(EXAMPLES[TurnRequested]), TurnUnderstood)
    assert err.value.reason == "unexpected_schema"
