"""Conversations over HTTP against the whole stack: a follow-up resolves from the persisted last frame."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest

from duocthu_contracts.http import DISCLAIMER
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e

#: This test client's token: the conversations it starts are its own (history and feedback need it).
OWNER = {"X-Client-Token": secrets.token_urlsafe(32)}


def ask(url: str, query: str, conversation: str) -> dict[str, Any]:
    response = httpx.post(f"{url}/v1/rag/query", json={"query": query, "conversation_id": conversation}, timeout=60,
                          headers=OWNER)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_follow_up_history_feedback_and_restart(stack_factory: StackFactory) -> None:
    stack = stack_factory()
    first = ask(stack.url, "Chống chỉ định của metformin?", "conv-http")
    assert (first["decision"], first["reason"]) == ("answerable", "verified"), first
    follow = ask(stack.url, "Còn tác dụng phụ của thuốc đó thì sao?", "conv-http")
    assert follow["decision"] == "answerable", follow
    citations = follow["citations"]
    assert isinstance(citations, list) and citations
    assert {(c["drug_id"], c["section_key"]) for c in citations} == {("metformin", "tac_dung_khong_mong_muon")}

    history = httpx.get(f"{stack.url}/v1/rag/history", params={"conversation_id": "conv-http"}, timeout=10,
                        headers=OWNER).json()
    assert [t["query"] for t in history["turns"]] == ["Chống chỉ định của metformin?",
                                                      "Còn tác dụng phụ của thuốc đó thì sao?"]
    assert history["disclaimer"] == DISCLAIMER

    ok = httpx.post(f"{stack.url}/v1/rag/feedback", json={"trace_id": first["trace_id"], "helpful": True}, timeout=10, headers=OWNER)
    assert ok.status_code == 200 and ok.json()["accepted"] is True
    missing = httpx.post(f"{stack.url}/v1/rag/feedback", json={"trace_id": "nope", "helpful": False}, timeout=10, headers=OWNER)
    assert missing.status_code == 404 and missing.json()["error"] == "unknown_trace"

    # the last frame lives in the store, not in the gateway process
    gateway = stack.find("gateway")
    gateway.stop()
    gateway.start()
    stack.wait_ready(60, "/healthz")
    again = ask(stack.url, "Thế còn liều dùng cho người lớn?", "conv-http")
    assert again["decision"] == "answerable", again
    assert {c["drug_id"] for c in again["citations"]} == {"metformin"}


def test_pediatric_clarify_then_answer(stack_factory: StackFactory) -> None:
    stack = stack_factory()
    asked = ask(stack.url, "Liều paracetamol cho trẻ em?", "conv-kid")
    assert (asked["decision"], asked["reason"]) == ("clarify", "patient_info_required"), asked
    answered = ask(stack.url, "Trẻ 4 tuổi", "conv-kid")
    assert answered["decision"] == "answerable", answered
    claims = answered["claims"]
    assert isinstance(claims, list) and claims
    assert all(c["text"].startswith("Trẻ em dưới 12 tuổi") for c in claims), claims
