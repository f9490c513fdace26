"""Trace context crosses NATS hops through the envelope, and stage metrics read back from /metrics text."""

from __future__ import annotations

import asyncio
from typing import Any

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import REGISTRY, generate_latest

from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnRequestedPayload
from duocthu_runtime import (
    Bus,
    RuntimeSettings,
    Stage,
    configure_tracing,
    current_traceparent,
    decode,
    new_turn,
    span,
    trace_id_hex,
)
from duocthu_runtime.devstack import NatsServer
from duocthu_understanding.main import handler_for
from tests.fixtures.understanding import sample_catalog


async def test_stage_span_joins_the_callers_trace_and_metrics_count_it(fresh_nats: NatsServer) -> None:
    exporter = InMemorySpanExporter()
    provider = configure_tracing("test")
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = RuntimeSettings(nats_url=fresh_nats.url, bus_fetch_timeout_s=0.5)
    bus = Bus(settings, client_name="understanding-traced")
    Stage("understanding", bus).consumes(TurnRequested, handler_for(sample_catalog()))
    await bus.start()
    client = Bus(settings, client_name="caller")
    await client.connect()
    done: asyncio.Queue[bytes] = asyncio.Queue()

    async def on_msg(msg: Any) -> None:
        done.put_nowait(msg.data)

    await client.broker.connection.subscribe("rag.v1.turn.completed.tr", cb=on_msg)
    with span("gateway query") as caller:
        trace_id = trace_id_hex(caller)
        turn = new_turn(TurnRequested, TurnRequestedPayload(query="Giá Panadol bao nhiêu?"), origin="tr",
                        deadline_s=30, llm_calls=8, traceparent=current_traceparent())
        await client.publish(turn)
    completed = decode(await asyncio.wait_for(done.get(), 10), TurnCompleted)
    assert completed.turn_id == turn.turn_id
    await asyncio.sleep(0.2)
    spans = [s for s in exporter.get_finished_spans() if s.name.startswith("understanding")]
    assert spans, [s.name for s in exporter.get_finished_spans()]
    stage_span = spans[0]
    assert format(stage_span.context.trace_id, "032x") == trace_id  # same trace across the NATS hop
    assert stage_span.parent is not None and format(stage_span.parent.span_id, "016x") == \
        format(caller.get_span_context().span_id, "016x")
    assert completed.traceparent is not None and trace_id in completed.traceparent
    text = generate_latest(REGISTRY).decode()
    assert 'duocthu_understanding_frames_total{outcome="out_of_scope",turn_type="out_of_scope"}' in text
    assert "Panadol" not in text  # no raw question text in any label
    await client.stop()
    await bus.stop()
