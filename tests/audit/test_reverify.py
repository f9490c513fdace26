"""`duocthu audit reverify` over a real stack's audit stream: agreement, a tampered verdict detected, and every stored
seal checked (an edited claim, a swapped citation, a verdict moved onto another turn, a seal by another key)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from nats.aio.msg import Msg

from duocthu_cli.stack.supervisor import Stack
from duocthu_contracts.answer import AnswerPlan, CheckOutcome, Claim, Draft, Verdict
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.evidence import Route
from duocthu_contracts.frame import DrugRef, QueryFrame, TurnType
from duocthu_contracts.messages import (
    AnswerDrafted,
    AnswerDraftedPayload,
    TurnCompleted,
    TurnCompletedPayload,
    TurnUnderstood,
    TurnUnderstoodPayload,
    TurnVerified,
)
from duocthu_contracts.sections import SectionKey
from duocthu_runtime import Bus
from duocthu_runtime.bus.envelope import derive, new_id, new_turn, utcnow
from duocthu_runtime.bus.versioning import decode
from duocthu_runtime.seal import SigningKey, seal_completion
from duocthu_runtime.settings import RuntimeSettings
from duocthu_verifier.application.verification import subject_of
from duocthu_verifier.domain.checks import run_deterministic_checks
from tests.fixtures.stack import StackFactory
from tests.fixtures.verifier import make_evidence

pytestmark = pytest.mark.e2e


def _reverify(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    # the operator identity comes from the stack's var dir
    env = dict(os.environ, NATS_URL=stack.nats_url or "", VAR_DIR=str(stack.var_dir), JUDGE_PROVIDER="none")
    return subprocess.run([sys.executable, "-m", "duocthu_cli", "audit", "reverify", *args], check=False, env=env,
                          capture_output=True, text=True, timeout=120)


async def _publish_real_turns(settings: RuntimeSettings) -> TurnVerified:
    """One real turn through the stack's stages; its sealed end as the verifier published it."""
    bus = Bus(settings, client_name="reverify-test")
    await bus.connect()
    ended: asyncio.Queue[bytes] = asyncio.Queue()
    turn = new_turn(TurnUnderstood, TurnUnderstoodPayload(query="Chống chỉ định của metformin?", frame=QueryFrame(
        turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[DrugRef(drug_id="metformin", drug_name="METFORMIN")],
        section_key=SectionKey.CHONG_CHI_DINH)), origin="rv", deadline_s=60, llm_calls=8)

    async def on_msg(msg: Msg) -> None:
        ended.put_nowait(msg.data)

    await bus.broker.connection.subscribe("rag.v1.turn.verified.rv", cb=on_msg)
    await bus.publish(turn)
    verified = decode(await asyncio.wait_for(ended.get(), 60), TurnVerified)
    await bus.stop()
    return verified


def _tampered_seals(real: TurnVerified) -> dict[str, TurnVerified]:
    """Copies of a real sealed turn end, each changed in one way after sealing (a new message id each)."""
    p = real.payload
    claim = p.claims[0].model_copy(update={"text": p.claims[0].text.replace("Không", "Có thể", 1) + " (đã sửa)"})
    evidence = p.evidence[0].model_copy(update={"text": p.evidence[0].text + " Dùng được cho trẻ em."})
    return {
        "claim edited": real.model_copy(update={"payload": p.model_copy(update={"claims": [claim, *p.claims[1:]]})}),
        "citation swapped": real.model_copy(update={"payload": p.model_copy(update={
            "evidence": [evidence, *p.evidence[1:]]})}),
        "replayed onto another turn": real.model_copy(update={"turn_id": new_id()}),
        "sealed by another key": seal_completion(real, SigningKey.generate()),
    }


async def _store(settings: RuntimeSettings, messages: list[TurnVerified]) -> None:
    bus = Bus(settings, client_name="tamper-seals")
    await bus.connect()
    for message in messages:
        copy = message.model_copy(update={"message_id": new_id()})
        await bus.js.publish("rag.v1.turn.verified.tamper", copy.model_dump_json(by_alias=True).encode())
    await bus.stop()


async def _publish_tampered_turn(settings: RuntimeSettings) -> str:
    """A draft with a number absent from its evidence, recorded as if the verifier had accepted it."""
    evidence = [make_evidence("amlodipin", "do_on_dinh_va_bao_quan")]
    draft = Draft(claims=[Claim(text="Bảo quản dưới 45 °C.", citations=[1])])
    payload = AnswerDraftedPayload(query="Bảo quản amlodipin?", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE),
                                   route=Route.A_SECTION, evidence=evidence, plan=AnswerPlan(), draft=draft)
    drafted = new_turn(AnswerDrafted, payload, origin="tamper", deadline_s=60, llm_calls=8)
    honest = run_deterministic_checks(subject_of(payload))
    forged = [r.model_copy(update={"outcome": CheckOutcome.PASSED, "reason": None}) for r in honest]
    verdict = Verdict(accepted=True, reason=Reason.VERIFIED, checks=forged)
    completed = derive(drafted, TurnCompleted, TurnCompletedPayload(
        query=payload.query, decision=Decision.ANSWERABLE, reason=Reason.VERIFIED, completed_by="verifier",
        claims=list(draft.claims), evidence=evidence, verdict=verdict), stage="verifier", started_at=utcnow())
    bus = Bus(settings, client_name="tamper")
    await bus.connect()
    # The drafted message goes to a subject no verifier consumes (shadow prefix is captured by its own stream),
    # so record both under the audit stream's subjects without a live consumer picking the draft up.
    await bus.js.publish("rag.v1.answer.drafted.recorded", drafted.model_dump_json(by_alias=True).encode())
    await bus.js.publish("rag.v1.turn.completed.tamper", completed.model_dump_json(by_alias=True).encode())
    await bus.stop()
    return drafted.turn_id


def test_reverify_agrees_with_real_verdicts_and_catches_a_tampered_one(stack_factory: StackFactory) -> None:
    stack = stack_factory(services=("gateway", "retrieval", "generation", "verifier"), ready_path="/healthz")
    ops = stack.ops_settings()  # publishing recorded turns as if by the stages takes the operator identity
    real = asyncio.run(_publish_real_turns(ops)).turn_id
    clean = _reverify(stack, real, "--since", "1h")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "re-verified 1 draft(s)" in clean.stdout and "DISAGREE" not in clean.stdout
    assert "seals checked: 1" in clean.stdout

    tampered = asyncio.run(_publish_tampered_turn(ops))
    caught = _reverify(stack, "--since", "1h")
    assert caught.returncode == 1, caught.stdout + caught.stderr
    lines = [line for line in caught.stdout.splitlines() if line.startswith("DISAGREE")]
    assert lines and all(tampered in line for line in lines)
    assert any("verdict: recorded accepted/verified, re-run rejected/ungrounded_number" in line for line in lines)

    missing = _reverify(stack, "0" * 32, "--since", "1h")
    assert missing.returncode == 1 and "no recorded draft" in missing.stderr


def test_reverify_finds_every_stored_seal_that_was_tampered_with(stack_factory: StackFactory) -> None:
    stack = stack_factory(services=("gateway", "retrieval", "generation", "verifier"), ready_path="/healthz")
    ops = stack.ops_settings()
    real = asyncio.run(_publish_real_turns(ops))
    assert real.payload.decision is Decision.ANSWERABLE and real.payload.claims
    tampered = _tampered_seals(real)
    # not even the operator may publish on the verifier's subject: the altered records are stored with the
    # verifier's own NATS identity (its password, not its signing key), as a tamperer holding it would
    verifier = ops.model_copy(update={"nats_user": "verifier", "nats_password": stack.credentials["verifier"]})
    asyncio.run(_store(verifier, list(tampered.values())))
    caught = _reverify(stack, "--since", "1h")
    assert caught.returncode == 1, caught.stdout + caught.stderr
    lines = [line for line in caught.stdout.splitlines() if line.startswith("DISAGREE")]
    assert len([line for line in lines if "seal bad_signature" in line]) == 3, lines  # claim, citation, turn
    assert len([line for line in lines if "seal unknown_key" in line]) == 1, lines  # another key
    assert "seals checked: 5" in caught.stdout  # the real one verifies
