"""What one bus hop costs above the bare transport: a stage with a no-op handler against a bare echo.

Issue 20's breakdown put five hops of a route-A turn at ~6.9 ms, while ``duocthu bench bus-floor`` puts a bare
JetStream hop (PubAck, pull, ack) at ~0.3 ms. This script measures the difference with no real handler in the
way: on a private ``nats-server`` (never the machine's), a driver publishes ``turn.requested`` as the gateway
does (:meth:`Bus.publish`, PubAck) and waits on a core subscription for the ``turn.completed`` it causes. The
other end is a separate process, either

* ``stage``: the stage framework (:class:`Stage`, FastStream pull consumer, decode, deadline guard, progress,
  span, publish with PubAck, ack) with a handler that completes the turn at once; or
* ``raw``: nats-py alone doing the same bus work -- a durable pull consumer on the same subject, fetch(1),
  publish of a pre-encoded ``turn.completed`` with a PubAck and ``Nats-Msg-Id``, ack.

The two round trips differ only in what the consuming process does between the delivery and the ack, so
``stage - raw`` is the stage framework's own time per hop. ``--repeats`` runs alternate the two sides; the
medians of each run's median are printed. ``--profile FILE`` writes a cProfile of the stage process (pstats).
Run: ``duocthu bench hop --repeats 5 --samples 400``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from duocthu_cli.bench.bus_floor import pull_echo_source
from duocthu_contracts.messages import TurnCompleted, TurnRequested, TurnRequestedPayload
from duocthu_runtime import Bus, RuntimeSettings, decode, new_turn
from duocthu_runtime.devstack import NatsServer

_STAGE = """
import asyncio, cProfile, signal, sys
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.messages import TurnRequested
try:
    from duocthu_runtime import Bus, RuntimeSettings, Stage
except ImportError:  # --before: a checkout from before the runtime's face
    from duocthu_runtime.bus.connection import Bus
    from duocthu_runtime.bus.stage import Stage
    from duocthu_runtime.settings import RuntimeSettings

async def handler(message, ctx):
    return [ctx.complete(Decision.ABSTAIN, Reason.STAGE_NOT_IMPLEMENTED)]

async def main():
    bus = Bus(RuntimeSettings(nats_url=sys.argv[1]), client_name="hop-stage")
    Stage("hop", bus).consumes(TurnRequested, handler)
    await bus.start()
    print("ready", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    profile = cProfile.Profile() if sys.argv[2] else None
    if profile:
        profile.enable()
    await stop.wait()
    if profile:
        profile.disable()
        profile.dump_stats(sys.argv[2])
    await bus.stop()
asyncio.run(main())
"""

_RAW = pull_echo_source(
    stream="RAG_AUDIT", listen="rag.v1.turn.requested", durable="hop_raw", reply="rag.v1.turn.completed.hopbench",
    prelude="""
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.messages import TurnCompleted, TurnCompletedPayload
from duocthu_runtime import encode, new_turn
BODY = encode(new_turn(TurnCompleted, TurnCompletedPayload(query="q", decision=Decision.ABSTAIN,
              reason=Reason.STAGE_NOT_IMPLEMENTED, completed_by="hop"), origin="hopbench", deadline_s=30, llm_calls=8))
""",
    body="BODY", headers='{"Nats-Msg-Id": f"raw-{n}-{msg.metadata.sequence.stream}"}')


def _child(python: str, code: str, *args: str) -> subprocess.Popen[str]:
    process = subprocess.Popen([python, "-c", textwrap.dedent(code), *args], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError("consumer process did not start")
    return process


async def _round_trips(url: str, samples: int) -> float:
    """Median ms from ``Bus.publish(turn.requested)`` to the ``turn.completed`` it caused (core subscription)."""
    bus = Bus(RuntimeSettings(nats_url=url), client_name="hop-driver")
    await bus.connect()
    arrived: asyncio.Queue[bytes] = asyncio.Queue()

    async def on_msg(msg: object) -> None:
        arrived.put_nowait(msg.data)  # type: ignore[attr-defined]

    sub = await bus.broker.connection.subscribe("rag.v1.turn.completed.hopbench", cb=on_msg)
    took = []
    for i in range(samples + 20):
        turn = new_turn(TurnRequested, TurnRequestedPayload(query="Liều amoxicilin cho người lớn?"),
                        origin="hopbench", deadline_s=30, llm_calls=8)
        began = time.perf_counter()
        await bus.publish(turn)
        body = await asyncio.wait_for(arrived.get(), 10)
        if i >= 20:  # the first ones warm both processes up
            took.append((time.perf_counter() - began) * 1000)
        decode(body, TurnCompleted)
    await sub.unsubscribe()
    await bus.stop()
    return statistics.median(took)


def run_hop(*, repeats: int, samples: int, profile: str, before: str) -> None:
    """Alternate the sides ``repeats`` times over ``samples`` round trips; print each side's median per hop."""
    sides: list[tuple[str, str, str, tuple[str, ...]]] = [
        ("raw", sys.executable, _RAW, ()), ("stage", sys.executable, _STAGE, (profile,))]
    if before:
        sides.insert(1, ("before", before, _STAGE, ("",)))
    runs: dict[str, list[float]] = {side[0]: [] for side in sides}
    with tempfile.TemporaryDirectory() as tmp, NatsServer(Path(tmp) / "nats") as server:
        asyncio.run(_declare(server.url))
        for _ in range(repeats):
            for side, python, code, extra in sides:
                process = _child(python, code, server.url, *extra)
                try:
                    runs[side].append(asyncio.run(_round_trips(server.url, samples)))
                finally:
                    os.kill(process.pid, signal.SIGTERM)
                    process.wait(timeout=30)
                asyncio.run(_drop_consumers(server.url))
    raw = statistics.median(runs["raw"])
    labels = {"raw": "bare consumer", "before": f"stage ({before})", "stage": "stage (this checkout)"}
    print("round trip turn.requested -> turn.completed, ms: median of runs (each run's median), runs; "
          "minus the bare consumer = the stage framework's own time on one hop")
    for side, values in runs.items():
        median = statistics.median(values)
        gap = "" if side == "raw" else f"   per hop above bare: {median - raw:.3f}"
        print(f"{labels[side]:>45}: {median:.3f}{gap}   runs {' '.join(f'{v:.3f}' for v in values)}")


async def _declare(url: str) -> None:
    bus = Bus(RuntimeSettings(nats_url=url), client_name="hop-setup")
    await bus.connect()
    await bus.stop()


async def _drop_consumers(url: str) -> None:
    """Each side's durable would otherwise pile up the other side's turns and replay them on its next run."""
    bus = Bus(RuntimeSettings(nats_url=url), client_name="hop-setup")
    await bus.connect()
    for info in await bus.js.consumers_info("RAG_AUDIT"):
        if info.name.startswith("hop"):
            await bus.js.delete_consumer("RAG_AUDIT", info.name)
    await bus.stop()
