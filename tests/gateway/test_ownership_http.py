"""Ownership of conversations (issue 21): history, feedback and follow-ups serve only the client that asked.

The adversary knows every conversation and turn id (they leak through URLs,
logs and screenshots) and may send any token, cookie or none; the gateway
runs on a real socket with real NATS and PostgreSQL (no stages: each turn
abstains at once as ``stage_unavailable``, which is still a recorded turn).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import httpx

from duocthu_gateway.domain.ownership import COOKIE, HEADER, NOT_OWNER
from tests.fixtures.gateway import LoneGateway


def ask(client: httpx.Client, conversation: str, **kwargs: Any) -> httpx.Response:
    return client.post("/v1/rag/query", json={"query": "Chống chỉ định của metformin?",
                                              "conversation_id": conversation}, **kwargs)


def test_only_the_owner_reads_history_gives_feedback_or_continues(lone_gateway: LoneGateway) -> None:
    alice_token = secrets.token_urlsafe(32)
    alice = httpx.Client(base_url=lone_gateway.url, headers={HEADER: alice_token}, timeout=30)
    first = ask(alice, "conv-alice")
    assert first.status_code == 200, first.text
    assert HEADER not in first.headers  # a presented token is not re-issued
    trace_id = first.json()["trace_id"]

    mine = alice.get("/v1/rag/history", params={"conversation_id": "conv-alice"})
    assert mine.status_code == 200 and [t["trace_id"] for t in mine.json()["turns"]] == [trace_id]
    assert mine.json()["turns"][0]["at"].endswith(("Z", "+00:00"))  # timestamps carry their zone
    assert alice.post("/v1/rag/feedback", json={"trace_id": trace_id, "helpful": True}).status_code == 200

    mallory = httpx.Client(base_url=lone_gateway.url, headers={HEADER: secrets.token_urlsafe(32)}, timeout=30)
    nobody = httpx.Client(base_url=lone_gateway.url, timeout=30)
    for client in (mallory, nobody):
        history = client.get("/v1/rag/history", params={"conversation_id": "conv-alice"})
        feedback = client.post("/v1/rag/feedback", json={"trace_id": trace_id, "helpful": False})
        assert history.status_code == feedback.status_code == 403, (history.text, feedback.text)
        assert history.json()["trace_id"] and "người dùng" in history.json()["detail"]
        continued = ask(client, "conv-alice")  # a follow-up would read the history into the turn
        assert continued.status_code == 403 and continued.json()["detail"] == NOT_OWNER
    # a malformed token is no token; a token's hash is not a token
    for bad in (b"x", b"a" * 200, "ü".encode() * 40, hashlib.sha256(alice_token.encode()).hexdigest().encode()):
        forged = httpx.Client(base_url=lone_gateway.url, headers={HEADER.encode(): bad}, timeout=30)
        assert forged.get("/v1/rag/history", params={"conversation_id": "conv-alice"}).status_code == 403
    assert len(mine.json()["turns"]) == 1  # nobody else's turn got into alice's conversation
    assert len(alice.get("/v1/rag/history", params={"conversation_id": "conv-alice"}).json()["turns"]) == 1
    assert alice.post("/v1/rag/feedback", json={"trace_id": "nope", "helpful": False}).status_code == 404


def test_a_browser_gets_an_httponly_cookie_and_owns_its_conversation(lone_gateway: LoneGateway) -> None:
    browser = httpx.Client(base_url=lone_gateway.url, timeout=30)
    first = ask(browser, "conv-browser")
    assert first.status_code == 200, first.text
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert first.headers[HEADER] == browser.cookies[COOKIE]
    assert browser.get("/v1/rag/history", params={"conversation_id": "conv-browser"}).status_code == 200
    assert ask(browser, "conv-browser").status_code == 200  # the cookie continues the conversation
    other = httpx.Client(base_url=lone_gateway.url, timeout=30)
    assert other.get("/v1/rag/history", params={"conversation_id": "conv-browser"}).status_code == 403
