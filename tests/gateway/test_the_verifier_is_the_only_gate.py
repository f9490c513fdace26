"""The verifier is the only way a turn becomes an answer (issue 32, item 5), against adversaries.

A real, secured nats-server with the project's per-service identities and a
real gateway answering over HTTP (no stages run: the adversary is the only
one who ends the turns):

* a compromised stage, per identity, with its own NATS credentials, publishes
  forged ``answerable``/``verify_pdf`` ends of a waiting turn on every subject
  it can reach: never shown, and counted by the gateway whenever the forgery
  reached a subject the gateway hears;
* with the verifier's NATS identity but not its signing key, a sealed end
  tampered with after sealing (a claim edited, a citation swapped, a verdict
  replayed onto another turn, a seal by another key) is refused; the same end
  untouched is shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import nats
import pytest

from duocthu_cli.eval.forged import Gate, private_gate
from duocthu_contracts.answer import Claim
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.messages import TurnCompleted, TurnCompletedPayload, TurnRequested, TurnVerified
from duocthu_contracts.sections import SectionKey
from duocthu_runtime import Bus
from duocthu_runtime.access.table import IDENTITIES, OPS
from duocthu_runtime.bus.envelope import derive, new_id, utcnow
from duocthu_runtime.bus.subjects import addressed_subject
from duocthu_runtime.seal import Keyring, SigningKey, check_seal, seal_completion
from duocthu_runtime.settings import inbox_prefix_for
from tests.fixtures.verifier import make_evidence

GUARD_S = 30.0
#: The identities that may publish a turn's end on the open subject the gateway hears (the operator's ``>``
#: reaches it too): the gate refuses what they forge; the others are refused by the server before that.
REACH_THE_OPEN_SUBJECT = {"understanding", "retrieval", "generation", "verifier", OPS}
STORAGE = make_evidence("amlodipin", SectionKey.DO_ON_DINH_VA_BAO_QUAN)
OTHER = make_evidence("paracetamol", SectionKey.DO_ON_DINH_VA_BAO_QUAN)


@pytest.fixture(scope="module")
def gate() -> Iterator[Gate]:
    with private_gate(deadline_s=4.0) as running:
        yield running


@pytest.mark.parametrize("user", [entry.user for entry in IDENTITIES])
async def test_a_compromised_identity_cannot_answer(gate: Gate, user: str) -> None:
    row = await gate.forge_as(user)
    assert row.sent >= 4, row
    assert row.shown == 0, row  # nothing forged reached the user
    decision, reason = row.outcome.split("/")
    assert decision == Decision.ABSTAIN.value, row
    verified = addressed_subject(TurnVerified, gate.settings.instance_id)
    if user != "verifier":  # the verifier's subject is the verifier's alone, the operator's included
        assert verified in row.subjects and row.refused_by_server >= 1, row
    if user in REACH_THE_OPEN_SUBJECT:
        assert reason in {Reason.ANSWER_NOT_FROM_VERIFIER.value, Reason.INVALID_VERDICT_SEAL.value}, row
        assert row.counted >= 1, row  # counted by the gateway (and logged as a security event)
    else:  # it reaches no subject the gateway hears: the turn runs out its budget, unanswered
        assert reason == Reason.REQUEST_BUDGET_EXHAUSTED.value, row
        assert row.counted == 0, row


def _sealed_answer(turn: TurnRequested, key: SigningKey) -> TurnVerified:
    """The verifier's end of ``turn``: a verbatim claim over real sample evidence, sealed with ``key``."""
    claim = Claim(text=STORAGE.text.split("\n")[0], citations=[1], drug_id="amlodipin")
    completed = derive(turn, TurnCompleted, TurnCompletedPayload(
        query=turn.payload.query, decision=Decision.ANSWERABLE, reason=Reason.VERIFIED, completed_by="verifier",
        answer=claim.text, claims=[claim], evidence=[STORAGE], resolved_drug_ids=["amlodipin"]),
        stage="verifier", started_at=utcnow())
    return seal_completion(completed, key)


def _edit_claim(end: TurnVerified, _: TurnRequested, __: SigningKey) -> TurnVerified:
    claim = end.payload.claims[0].model_copy(update={"text": "Bảo quản ở nhiệt độ dưới 45 °C, không cần tránh ánh sáng."})
    return end.model_copy(update={"payload": end.payload.model_copy(update={"claims": [claim], "answer": claim.text})})


def _swap_citation(end: TurnVerified, _: TurnRequested, __: SigningKey) -> TurnVerified:
    return end.model_copy(update={"payload": end.payload.model_copy(update={"evidence": [OTHER]})})


def _replay_other_turn(end: TurnVerified, turn: TurnRequested, key: SigningKey) -> TurnVerified:
    """A genuine seal of another turn's end, re-addressed to this turn."""
    other = turn.model_copy(update={"turn_id": new_id(), "message_id": new_id()})
    return _sealed_answer(other, key).model_copy(update={"turn_id": turn.turn_id})


def _another_key(end: TurnVerified, _: TurnRequested, __: SigningKey) -> TurnVerified:
    return seal_completion(end, SigningKey.generate())


TAMPERINGS: dict[str, tuple[Callable[[TurnVerified, TurnRequested, SigningKey], TurnVerified], str]] = {
    "a claim edited": (_edit_claim, "bad_signature"),
    "a citation swapped": (_swap_citation, "bad_signature"),
    "a verdict replayed onto another turn": (_replay_other_turn, "bad_signature"),
    "a seal by another key": (_another_key, "unknown_key"),
}


async def _ask_and_end(gate: Gate, end_with: Callable[[TurnRequested], TurnVerified]
                       ) -> tuple[dict[str, Any], TurnVerified]:
    """Ask the gateway; end the turn by publishing ``end_with(turn)`` with the verifier's NATS identity."""
    verifier = await nats.connect(gate.nats_url, user="verifier", password=gate.passwords["verifier"],
                                  inbox_prefix=inbox_prefix_for("verifier"), allow_reconnect=False)
    watcher = Bus(gate.ops, client_name="tamper-watch")
    await watcher.connect()
    try:
        async with httpx.AsyncClient(base_url=gate.url, timeout=GUARD_S) as http:
            async with watcher.follow(TurnRequested, since="new") as requested:
                asking = asyncio.create_task(http.post("/v1/rag/query", json={"query": "Bảo quản amlodipin?"}))
                turn = await asyncio.wait_for(requested.get(), GUARD_S)
            end = end_with(turn)
            await verifier.publish(addressed_subject(TurnVerified, turn.origin),
                                   end.model_dump_json(by_alias=True).encode())
            await verifier.flush()
            response: dict[str, Any] = (await asyncio.wait_for(asking, GUARD_S)).json()
            return response, end
    finally:
        await watcher.stop()
        await verifier.close()


async def test_an_untouched_sealed_answer_is_shown(gate: Gate) -> None:
    response, _ = await _ask_and_end(gate, lambda turn: _sealed_answer(turn, gate.verifier_key))
    assert (response["decision"], response["reason"]) == ("answerable", "verified"), response
    assert response["claims"][0]["text"] == STORAGE.text.split("\n")[0]
    assert response["citations"][0]["text"] == STORAGE.text


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
async def test_a_sealed_answer_tampered_with_is_refused(gate: Gate, tampering: str) -> None:
    change, found = TAMPERINGS[tampering]
    key = gate.verifier_key
    response, end = await _ask_and_end(gate, lambda turn: change(_sealed_answer(turn, key), turn, key))
    assert check_seal(end, Keyring.of(key.public)).value == found  # what the gate found wrong
    assert (response["decision"], response["reason"]) == ("abstain", Reason.INVALID_VERDICT_SEAL.value), response
    assert not response["claims"] and not response["citations"] and not response["answer"]
    assert response["reason_message"]  # a Vietnamese explanation from the closed set
    async with httpx.AsyncClient(base_url=gate.url, timeout=GUARD_S) as http:
        metrics = (await http.get("/metrics")).text
    assert 'duocthu_gateway_completions_refused_total{reason="invalid_verdict_seal"}' in metrics
