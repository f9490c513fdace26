"""A question asked again under its own X-Correlation-ID is answered from its record (issue 21).

When a gateway is killed after it recorded a turn but before the answer left
(the record is written first, so an answered question is never unrecorded), the
client asks again with the same correlation id and reaches another replica.
That replica must give the same answer without running a second turn or
writing a second history row — and only to the client that asked: a guessed
correlation id from anyone else, or the id reused for another question, starts
a turn of its own. Real socket, NATS and PostgreSQL (no stages: each turn
abstains at once as ``stage_unavailable``, still a recorded turn).
"""

from __future__ import annotations

import secrets

import httpx

from duocthu_gateway.domain.ownership import HEADER
from tests.fixtures.gateway import LoneGateway, metric_value

QUESTION = "Chống chỉ định của metformin?"
ANSWERED = "duocthu_gateway_answered_from_record_total"


def _client(gateway: LoneGateway, token: str | None = None) -> httpx.Client:
    return httpx.Client(base_url=gateway.url, headers={HEADER: token} if token else {}, timeout=30)


def _ask(client: httpx.Client, correlation_id: str | None, query: str = QUESTION,
         conversation: str | None = "conv-again") -> dict[str, object]:
    headers = {"X-Correlation-ID": correlation_id} if correlation_id else {}
    response = client.post("/v1/rag/query", json={"query": query, "conversation_id": conversation}, headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


def _answered(gateway: LoneGateway) -> float:
    return metric_value(httpx.get(f"{gateway.url}/metrics", timeout=10).text, ANSWERED)


def test_the_same_client_asking_again_gets_the_recorded_answer_and_no_second_turn(lone_gateway: LoneGateway) -> None:
    alice = _client(lone_gateway, secrets.token_urlsafe(32))
    before = _answered(lone_gateway)
    first = _ask(alice, "retry-0001")
    again = _ask(alice, "retry-0001")
    assert again == first  # the same turn, the same response, field for field
    assert _answered(lone_gateway) == before + 1
    history = alice.get("/v1/rag/history", params={"conversation_id": "conv-again"}).json()["turns"]
    assert [t["trace_id"] for t in history] == [first["trace_id"]]


def test_no_one_else_and_no_other_question_gets_a_recorded_answer(lone_gateway: LoneGateway) -> None:
    alice, mallory = _client(lone_gateway, secrets.token_urlsafe(32)), _client(lone_gateway, secrets.token_urlsafe(32))
    first = _ask(alice, "retry-0002", conversation=None)
    before = _answered(lone_gateway)
    stolen = _ask(mallory, "retry-0002", conversation=None)  # the id guessed (or leaked) by another client
    assert stolen["trace_id"] != first["trace_id"]
    other_question = _ask(alice, "retry-0002", query="Liều paracetamol cho người lớn?", conversation=None)
    other_conversation = _ask(alice, "retry-0002", conversation="conv-elsewhere")
    unnamed = [_ask(alice, None, conversation=None) for _ in range(2)]  # no id of its own: every ask a turn
    trace_ids = {first["trace_id"], stolen["trace_id"], other_question["trace_id"],
                 other_conversation["trace_id"], *(u["trace_id"] for u in unnamed)}
    assert len(trace_ids) == 6
    assert _answered(lone_gateway) == before
    # and the first client still gets its own answer back
    assert _ask(alice, "retry-0002", conversation=None) == first


def test_a_tokenless_client_is_never_answered_from_a_record(lone_gateway: LoneGateway) -> None:
    """No credential, nothing to bind the record to: each ask is a turn (the minted token is new each time)."""
    first = _ask(_client(lone_gateway), "retry-0003", conversation=None)
    again = _ask(_client(lone_gateway), "retry-0003", conversation=None)
    assert again["trace_id"] != first["trace_id"]
