"""Retrieval → generation → verifier as real processes on real NATS, fed an understood turn.

The understanding stage is bypassed on purpose (its own tests cover the
frame): a ``TurnUnderstood`` with a fixed frame is published as the
understanding stage would, and the completion is read off the bus.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.frame import DrugRef, QueryFrame, TurnType
from duocthu_contracts.messages import TurnCompleted, TurnUnderstood, TurnUnderstoodPayload, TurnVerified
from duocthu_contracts.sections import SectionKey
from duocthu_runtime import Bus, RuntimeSettings, decode, new_turn
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e
ORIGIN = "chain-test"


def understood(query: str, frame: QueryFrame) -> TurnUnderstood:
    payload = TurnUnderstoodPayload(query=query, frame=frame.model_copy(update={"standalone_query": query}))
    return new_turn(TurnUnderstood, payload, origin=ORIGIN, deadline_s=60, llm_calls=8)


def drug(drug_id: str) -> DrugRef:
    return DrugRef(drug_id=drug_id, drug_name=drug_id.upper())


async def _ask(settings: RuntimeSettings, turns: list[TurnUnderstood]) -> dict[str, TurnCompleted]:
    bus = Bus(settings, client_name="chain-test")
    await bus.connect()
    done: dict[str, TurnCompleted] = {}
    arrived = asyncio.Event()

    async def on_msg(msg: Any) -> None:
        # a stage's own end on the open subject, the verifier's sealed one on its own
        completed = decode(msg.data, TurnVerified if msg.subject.startswith("rag.v1.turn.verified.") else TurnCompleted)
        done[completed.turn_id] = completed
        if len(done) == len(turns):
            arrived.set()

    await bus.broker.connection.subscribe(f"rag.v1.turn.completed.{ORIGIN}", cb=on_msg)
    await bus.broker.connection.subscribe(f"rag.v1.turn.verified.{ORIGIN}", cb=on_msg)
    for turn in turns:
        await bus.publish(turn)
    await asyncio.wait_for(arrived.wait(), 90)
    await bus.stop()
    return done


def test_section_dose_condition_and_table_turns(stack_factory: StackFactory) -> None:
    stack = stack_factory(services=("gateway", "retrieval", "generation", "verifier"), ready_path="/healthz")
    contra = understood("Chống chỉ định của metformin?", QueryFrame(
        turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[drug("metformin")], section_key=SectionKey.CHONG_CHI_DINH))
    table = understood("Liều gentamicin?", QueryFrame(
        turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[drug("gentamicin")],
        section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG))
    condition = understood("Thuốc nào điều trị đái tháo đường typ 2?", QueryFrame(
        turn_type=TurnType.CONDITION_TO_DRUG, condition="đái tháo đường typ 2"))
    dose = understood("Liều paracetamol cho người lớn?", QueryFrame(
        turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[drug("paracetamol")], population="Người lớn",
        section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG))
    done = asyncio.run(_ask(stack.ops_settings(), [contra, table, condition, dose]))

    answer = done[contra.turn_id].payload
    assert (answer.decision, answer.reason) == (Decision.ANSWERABLE, Reason.VERIFIED), answer.detail
    assert answer.claims and answer.completed_by == "verifier"
    for claim in answer.claims:
        cited = [answer.evidence[i - 1] for i in claim.citations]
        assert all(e.drug_id == "metformin" and e.section_key is SectionKey.CHONG_CHI_DINH for e in cited)
        assert any(claim.text in e.text for e in cited)

    visual = done[table.turn_id].payload
    assert (visual.decision, visual.reason) == (Decision.VERIFY_PDF, Reason.VISUAL_CHECK_REQUIRED)
    assert any(e.attachments for e in visual.evidence) and not visual.claims

    listed = done[condition.turn_id].payload
    assert listed.decision is Decision.ANSWERABLE, listed.detail
    assert "metformin" in {c.drug_id for c in listed.claims}
    assert {e.section_key for e in listed.evidence} == {SectionKey.CHI_DINH}

    doses = done[dose.turn_id].payload
    assert doses.decision is Decision.ANSWERABLE, doses.detail
    assert doses.claims and all("Người lớn" in c.text for c in doses.claims)
