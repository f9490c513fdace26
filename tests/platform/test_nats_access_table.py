"""The NATS permission table against the AsyncAPI document and the rendered server configuration.

The table (:mod:`duocthu_runtime.access.table`) is the one place that says who
may do what; these checks keep it honest: a stage is allowed exactly the
``rag.*`` subjects the AsyncAPI document says it sends or receives, nothing
else of that space, and the rendered grants never open the audit stream or the
ingest job subject to anyone but their owners.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from duocthu_cli.export.contracts import ASYNCAPI_PATH
from duocthu_contracts import subjects as s
from duocthu_contracts.messages import IngestJobRequested
from duocthu_runtime.access import IDENTITIES, OPS, Identity, identity_of_service
from duocthu_runtime.access.server_config import publish_allow, publish_deny, subscribe_allow
from duocthu_runtime.access.table import identity
from duocthu_runtime.bus.subjects import stream_for


def _asyncapi() -> dict[str, dict[str, set[str]]]:
    """Per service: the subjects it sends and receives, ``{origin}`` written as the NATS wildcard ``*``."""
    document: dict[str, Any] = json.loads(ASYNCAPI_PATH.read_text(encoding="utf-8"))
    out: dict[str, dict[str, set[str]]] = {}
    for key, operation in document["operations"].items():
        service = key.split(":", 1)[0]
        channel = document["channels"][operation["channel"]["$ref"].rsplit("/", 1)[1].replace("%7B", "{")
                                         .replace("%7D", "}")]
        subject = channel["bindings"]["nats"]["subject"].replace("{origin}", "*")
        out.setdefault(service, {"send": set(), "receive": set()})[operation["action"]].add(subject)
    return out


def _rag(subjects: set[str] | tuple[str, ...] | list[str]) -> set[str]:
    return {x for x in subjects if x.startswith("rag.")}


SERVICES = sorted(_asyncapi())


def test_every_service_of_the_asyncapi_document_has_an_identity() -> None:
    assert {e.service for e in IDENTITIES if e.service} == set(SERVICES)


@pytest.mark.parametrize("service", SERVICES)
def test_rag_subjects_match_the_asyncapi_document_exactly(service: str) -> None:
    spec = _asyncapi()[service]
    entry = identity_of_service(service)
    assert _rag(entry.publishes) == _rag(spec["send"]), "publishes"
    assert _rag(entry.consumed_subjects()) == _rag(spec["receive"]), "consumes"
    # and the rendered grants: no rag.* subject beyond those (their shadow.* twins are the replay lane)
    assert _rag(publish_allow(entry)) == _rag(spec["send"])
    assert _rag(subscribe_allow(entry)) <= _rag(spec["receive"])
    for subject in _rag(subscribe_allow(entry)):  # a core subscription only where a durable cannot serve
        assert subject.endswith(".*"), subject


@pytest.mark.parametrize("service", SERVICES)
def test_every_non_application_grant_is_a_jetstream_api_an_own_inbox_or_an_own_bucket(service: str) -> None:
    entry = identity_of_service(service)
    application = set(entry.publishes) | {f"shadow.{x}" for x in entry.publishes} | set(entry.subscribes)
    pattern = re.compile(r"^(\$JS\.API\.|\$JS\.ACK\.|\$JS\.FC\.|\$KV\.|" + re.escape(entry.inbox_prefix) + r"\.)")
    for grant in [*publish_allow(entry), *subscribe_allow(entry)]:
        assert grant in application or pattern.match(grant), grant
        assert grant != ">" and not grant.startswith((">", "_INBOX.", "$JS.API.>", "$JS.API.CONSUMER.>"))


def _audit_grants(entry: Identity) -> list[str]:
    return [g for g in publish_allow(entry) if f".{s.AUDIT_STREAM}" in g]


@pytest.mark.parametrize("entry", [e for e in IDENTITIES if e.user != OPS], ids=lambda e: e.user)
def test_no_service_may_read_the_audit_stream_beyond_its_own_filtered_consumers(entry: Identity) -> None:
    own = {c.durable: c.filter_subject for c in entry.consumers() if c.stream == s.AUDIT_STREAM}
    for grant in _audit_grants(entry):
        assert "MSG.GET" not in grant and "DIRECT.GET" not in grant and "PURGE" not in grant and "UPDATE" not in grant
        assert ("DELETE" not in grant and not grant.endswith(">")) or grant.startswith("$JS.ACK.")
        if ".CONSUMER." in grant:
            tail = grant.split(f".{s.AUDIT_STREAM}.", 1)[1]
            durable, _, rest = tail.partition(".")
            if durable == "*":  # a catch-up: any name, the filter pinned to a subject it already hears
                assert grant.startswith(f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}.*.") and rest in entry.catches_up
                continue
            assert durable in own, grant
            assert rest in ("", own[durable]), grant  # CREATE names the consumer's own filter
    assert not any(g.startswith(f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}") and g.count(".") < 6
                   for g in _audit_grants(entry))
    assert all(s.AUDIT_REDACTED_STREAM not in g or "STREAM." in g for g in publish_allow(entry))


def test_only_the_gateway_and_the_operator_publish_ingest_jobs() -> None:
    allowed = {e.user for e in IDENTITIES if IngestJobRequested.SUBJECT in publish_allow(e) or e.admin}
    assert allowed == {"gateway", OPS}
    assert identity(OPS).admin and publish_allow(identity(OPS)) == [">"]


@pytest.mark.parametrize("entry", [e for e in IDENTITIES if e.catches_up], ids=lambda e: e.user)
def test_a_catch_up_reads_back_only_what_its_identity_hears_and_no_stage_durable(entry: Identity) -> None:
    assert set(entry.catches_up) <= set(entry.subscribes)
    durables = {(c.stream, c.durable) for e in IDENTITIES for c in e.consumers()
                if c.stream in {stream_for(x) for x in entry.catches_up}}
    assert durables, "a catch-up on a stream no stage consumes needs no deny list"
    assert set(publish_deny(entry)) == {f"$JS.API.CONSUMER.CREATE.{stream}.{durable}.>" for stream, durable in durables}


def test_an_identity_without_a_catch_up_has_no_wildcard_consumer_grant() -> None:
    for entry in IDENTITIES:
        if entry.admin or entry.catches_up:
            continue
        assert publish_deny(entry) == []
        for grant in publish_allow(entry):
            if ".CONSUMER.CREATE." in grant and not any(grant.startswith(f"$JS.API.CONSUMER.CREATE.{f}")
                                                         for f in entry.follows):
                assert ".*." not in grant, grant
