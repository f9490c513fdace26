"""`duocthu audit reverify` over a real stack's audit stream: agreement, and a tampered verdict detected."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

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
)
from duocthu_contracts.sections import SectionKey
from duocthu_runtime import Bus, RuntimeSettings, new_turn, utcnow
from duocthu_runtime.bus.envelope import derive
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


async def _publish_real_turns(settings: RuntimeSettings) -> str:
    bus = Bus(settings, client_name="reverify-test")
    await bus.connect()
    done = asyncio.Event()
    turn = new_turn(TurnUnderstood, TurnUnderstoodPayload(query="Chống chỉ định của metformin?", frame=QueryFrame(
        turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[DrugRef(drug_id="metformin", drug_name="METFORMIN")],
        section_key=SectionKey.CHONG_CHI_DINH)), origin="rv", deadline_s=60, llm_calls=8)

    async def on_msg(msg: object) -> None:
        done.set()

    await bus.broker.connection.subscribe("rag.v1.turn.completed.rv", cb=on_msg)
    await bus.publish(turn)
    await asyncio.wait_for(done.wait(), 60)
    await bus.stop()
    return turn.turn_id


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
    real = asyncio.run(_publish_real_turns(ops))
    clean = _reverify(stack, real, "--since", "1h")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "re-verified 1 draft(s)" in clean.stdout and "DISAGREE" not in clean.stdout

    tampered = asyncio.run(_publish_tampered_turn(ops))
    caught = _reverify(stack, "--since", "1h")
    assert caught.returncode == 1, caught.stdout + caught.stderr
    lines = [line for line in caught.stdout.splitlines() if line.startswith("DISAGREE")]
    assert lines and all(tampered in line for line in lines)
    assert any("verdict: recorded accepted/verified, re-run rejected/ungrounded_number" in line for line in lines)

    missing = _reverify(stack, "0" * 32, "--since", "1h")
    assert missing.returncode == 1 and "no recorded draft" in missing.stderr
