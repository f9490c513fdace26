"""Patient-context redaction of stored audit messages."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from duocthu_cli.audit.cli import _redact_older_than, _turn
from duocthu_cli.audit.redaction import REDACTED, redact
from duocthu_contracts import subjects as s
from duocthu_contracts.frame import DrugRef, LabValue, PatientContext, QueryFrame, TurnType
from duocthu_contracts.messages import TurnRequested, TurnRequestedPayload, TurnUnderstood, TurnUnderstoodPayload
from duocthu_runtime import Bus, RuntimeSettings, encode, new_turn, utcnow
from duocthu_runtime.bus.envelope import derive
from duocthu_runtime.devstack import NatsServer

PATIENT = PatientContext(age_years=71, weight_kg=52, pregnant=False, crcl_ml_min=28,
                         creatinine=LabValue(name="creatinin", value="2,1", unit="mg/dl"),
                         current_medications=[DrugRef(drug_id="warfarin", drug_name="WARFARIN")])
FRAME = QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, patient_context=PATIENT, age_years=71, weight_kg=52,
                   standalone_query="Liều gentamicin cho bệnh nhân 71 tuổi, 52 kg, Clcr 28?")


def _turn_messages() -> tuple[TurnRequested, TurnUnderstood]:
    query = "Liều gentamicin cho bệnh nhân 71 tuổi, 52 kg, Clcr 28?"
    requested = new_turn(TurnRequested, TurnRequestedPayload(query=query, last_frame=FRAME), origin="gw",
                         deadline_s=40, llm_calls=8)
    understood = derive(requested, TurnUnderstood, TurnUnderstoodPayload(query=query, frame=FRAME),
                        stage="understanding", started_at=utcnow())
    return requested, understood


def test_redact_empties_patient_context_everywhere_and_keeps_the_rest() -> None:
    _, understood = _turn_messages()
    document = json.loads(encode(understood))
    redacted, changed = redact(document)
    assert changed
    assert redacted["payload"]["frame"]["patient_context"] == {}
    assert redacted["payload"]["query"] == document["payload"]["query"]
    assert redacted["turn_id"] == document["turn_id"]
    assert "71" not in json.dumps(redacted["payload"]["frame"]["patient_context"])
    with_query, _ = redact(document, include_query=True)
    assert with_query["payload"]["query"] == REDACTED
    assert with_query["payload"]["frame"]["standalone_query"] == REDACTED
    assert with_query["payload"]["frame"]["age_years"] is None
    again, changed_again = redact(redacted)
    assert not changed_again and again == redacted


def test_redact_at_rest_moves_copies_and_erases_originals(fresh_nats: NatsServer) -> None:
    async def scenario() -> None:
        bus = Bus(RuntimeSettings(nats_url=fresh_nats.url), client_name="t")
        await bus.connect()
        requested, understood = _turn_messages()
        await bus.publish(requested)
        await bus.publish(understood)
        count = await _redact_older_than(bus, utcnow() + timedelta(seconds=1), include_query=False, dry_run=False)
        assert count == 2
        live = await bus.js.stream_info(s.AUDIT_STREAM)
        assert live.state.messages == 0
        chain = await _turn(bus, requested.turn_id, utcnow() - timedelta(hours=1))
        assert [r.kind for r in chain] == ["rag.turn.requested", "rag.turn.understood"]
        assert all(r.document["redacted"]["patient_context"] for r in chain)
        assert chain[1].payload["frame"]["patient_context"] == {}
        assert await _redact_older_than(bus, utcnow(), include_query=False, dry_run=False) == 0
        await bus.stop()

    asyncio.run(scenario())
