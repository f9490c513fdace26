"""The verifier stage on a real NATS: completion, abstain, and one repair request.

Every turn end the verifier writes goes out sealed on its own subject (``rag.v1.turn.verified.<origin>``),
none on the open ``rag.v1.turn.completed.<origin>``.
"""

from __future__ import annotations

import asyncio
import json

from duocthu_contracts.answer import AnswerPlan, Claim, Draft
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.evidence import Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.messages import AnswerDrafted, AnswerDraftedPayload, AnswerRejected, TurnVerified
from duocthu_runtime import Bus
from duocthu_runtime.bus.envelope import new_turn
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.bus.versioning import decode
from duocthu_runtime.devstack import NatsServer
from duocthu_runtime.seal import Keyring, SealCheck, check_seal
from duocthu_runtime.settings import RuntimeSettings
from duocthu_verifier import KeySigner
from duocthu_verifier.adapters.judge import Judge
from duocthu_verifier.entrypoints.bus import VerifierHandler
from tests.fixtures.bus import listen
from tests.fixtures.verifier import ScriptedProvider, make_evidence

STORE = make_evidence("amlodipin", "do_on_dinh_va_bao_quan")
OBJECTION = json.dumps({"claims": [{"index": 1, "entailed": True}], "complete": False, "missing_evidence": [
    {"description": "thiếu tránh ánh sáng và ẩm", "evidence_quote": "tránh ánh sáng và ẩm"}]})


def drafted(text: str, attempt: int = 1) -> AnswerDrafted:
    payload = AnswerDraftedPayload(
        query="Bảo quản amlodipin thế nào?", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE),
        route=Route.A_SECTION, evidence=[STORE], plan=AnswerPlan(), attempt=attempt,
        draft=Draft(claims=[Claim(text=text, citations=[1])], generated=True),
    )
    return new_turn(AnswerDrafted, payload, origin="gw", deadline_s=30, llm_calls=8)


async def test_verifier_stage_over_nats(fresh_nats: NatsServer) -> None:
    settings = RuntimeSettings(nats_url=fresh_nats.url, bus_fetch_timeout_s=0.5)
    provider = ScriptedProvider(replies=[OBJECTION, OBJECTION])
    bus = Bus(settings, client_name="verifier-under-test")
    signer = KeySigner.ephemeral()
    keys = Keyring.parse(signer.public)
    Stage("verifier", bus).consumes(AnswerDrafted, VerifierHandler(Judge(provider), signer=signer))
    await bus.start()
    client = Bus(settings, client_name="client")
    await client.connect()
    received = await listen(client, "rag.v1.turn.completed.gw", "rag.v1.turn.verified.gw", "rag.v1.answer.rejected")

    verbatim = drafted(STORE.text.split("\n")[0])
    await client.publish(verbatim)
    subject, data = await asyncio.wait_for(received.get(), 10)
    assert subject == "rag.v1.turn.verified.gw"
    done = decode(data, TurnVerified)
    assert check_seal(done, keys) is SealCheck.VALID and done.payload.seal.key_id == signer.key_id
    assert (done.payload.decision, done.payload.reason) == (Decision.ANSWERABLE, Reason.VERIFIED)
    assert done.payload.blocks and done.payload.blocks[0].title == "Độ ổn định và bảo quản"
    assert done.payload.evidence == [STORE]
    assert done.llm_calls_remaining == 8, "verbatim claims never call the judge"

    partial = drafted("Bảo quản dưới 30 °C.")
    await client.publish(partial)
    subject, data = await asyncio.wait_for(received.get(), 10)
    assert subject == "rag.v1.answer.rejected"
    rejected = decode(data, AnswerRejected)
    assert rejected.payload.verdict.reason == Reason.INCOMPLETE_ANSWER
    assert rejected.payload.verdict.missing_evidence[0].evidence_quote == "tránh ánh sáng và ẩm"
    assert rejected.llm_calls_remaining == 7

    second = drafted("Bảo quản dưới 30 °C.", attempt=2)
    await client.publish(second)
    subject, data = await asyncio.wait_for(received.get(), 10)
    assert subject == "rag.v1.turn.verified.gw"
    final = decode(data, TurnVerified)
    assert check_seal(final, keys) is SealCheck.VALID
    assert (final.payload.decision, final.payload.reason) == (Decision.ABSTAIN, Reason.INCOMPLETE_ANSWER)
    assert final.payload.verdict is not None and final.payload.verdict.checks
    await client.stop()
    await bus.stop()
