"""The floor under a route-A turn over HTTP: what the bare transport costs before any duocthu code runs.

Issue 20 asks for the HTTP p50 of a route-A turn to be at most 1.5x the in-process p50 of the same pipeline.
The pipeline in one process now takes about 1.2 ms (full book), so the target leaves 0.6 ms for one HTTP round
trip, five JetStream hops and the gateway's turn record.  This script measures the cheapest version of each part
with no duocthu code in the path, so the target can be checked against the transport itself:

* ``core hop``: a core-NATS message from one process to another (half of a request/echo round trip);
* ``js hop``: a JetStream hop as the stages make it -- publish with a PubAck to a file-backed stream, the
  other process pulls it from a durable consumer (long-poll fetch), acks it and publishes the next message the
  same way (half of the echo round trip);
* ``http``: one HTTP round trip (httpx keep-alive client to a one-route ASGI app on uvicorn, the gateway's server).

Each part runs in its own processes on a private ``nats-server`` (never the machine's), ``--repeats`` times
``--samples`` round trips; the medians of the per-run medians are printed, then the floor of a route-A turn:
``http + 5 * js hop`` (understanding, retrieval, generation, verifier, and the completion to the gateway).
Run: ``duocthu bench bus-floor --repeats 5 --samples 400 --in-process-ms 1.2``.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import httpx
import nats

from duocthu_runtime.devstack import NatsServer, free_port

_CORE_ECHO = """
import asyncio, sys, nats
async def main():
    nc = await nats.connect(sys.argv[1])
    async def echo(msg):
        await nc.publish(msg.reply, msg.data)
    await nc.subscribe("floor.core.ping", cb=echo)
    await nc.flush()
    print("ready", flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""

def pull_echo_source(*, stream: str, listen: str, durable: str, reply: str, prelude: str = "",
                     body: str = "msg.data", headers: str = "None") -> str:
    """The source of a bare nats-py JetStream echo: pull one message, publish ``body`` (an expression; ``msg``
    and the count ``n`` are in scope) to ``reply`` with a PubAck, ack. Also ``duocthu bench hop``'s baseline (:mod:`.hop`)."""
    return f"""
import asyncio, sys, nats
{prelude}
async def main():
    nc = await nats.connect(sys.argv[1])
    js = nc.jetstream()
    sub = await js.pull_subscribe("{listen}", durable="{durable}", stream="{stream}")
    print("ready", flush=True)
    n = 0
    while True:
        try:
            msgs = await sub.fetch(1, timeout=5)
        except nats.errors.TimeoutError:
            continue
        for msg in msgs:
            n += 1
            await js.publish("{reply}", {body}, stream="{stream}", headers={headers})
            await msg.ack()
asyncio.run(main())
"""


_JS_ECHO = pull_echo_source(stream="FLOOR", listen="floor.js.ping", durable="echo", reply="floor.js.pong")

_HTTP_APP = """
import sys, uvicorn
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"decision":"answerable"}'})
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""


def _child(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], stdout=subprocess.PIPE, text=True)


def _wait_line(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError("echo process did not start")


async def _core_hop(url: str, samples: int) -> float:
    nc = await nats.connect(url)
    took = []
    for _ in range(samples):
        began = time.perf_counter()
        await nc.request("floor.core.ping", b"x" * 1024, timeout=5)
        took.append((time.perf_counter() - began) * 1000 / 2)
    await nc.close()
    return statistics.median(took)


async def _js_hop(url: str, samples: int) -> float:
    nc = await nats.connect(url)
    js = nc.jetstream()
    sub = await js.pull_subscribe("floor.js.pong", durable="bench", stream="FLOOR")
    took = []
    for _ in range(samples):
        began = time.perf_counter()
        await js.publish("floor.js.ping", b"x" * 1024)
        msgs = await sub.fetch(1, timeout=5)
        await msgs[0].ack()
        took.append((time.perf_counter() - began) * 1000 / 2)
    await nc.close()
    return statistics.median(took)


async def _http(port: int, samples: int) -> float:
    took = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
        for _ in range(samples):
            began = time.perf_counter()
            response = await client.post("/v1/rag/query", json={"query": "Liều amoxicilin cho người lớn?"})
            response.raise_for_status()
            took.append((time.perf_counter() - began) * 1000)
    return statistics.median(took)


def _wait_http(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.post(f"http://127.0.0.1:{port}/", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise RuntimeError("HTTP echo did not start")


def run_floor(*, repeats: int, samples: int, in_process_ms: float) -> None:
    """Measure each part ``repeats`` times over ``samples`` round trips; print the medians and the floor."""
    with tempfile.TemporaryDirectory() as tmp, NatsServer(Path(tmp) / "nats") as server:
        async def setup() -> None:
            nc = await nats.connect(server.url)
            await nc.jetstream().add_stream(name="FLOOR", subjects=["floor.js.>"])
            await nc.close()

        asyncio.run(setup())
        port = free_port()
        children = [_child(_CORE_ECHO, server.url), _child(_JS_ECHO, server.url), _child(_HTTP_APP, str(port))]
        try:
            _wait_line(children[0])
            _wait_line(children[1])
            _wait_http(port)
            runs: dict[str, list[float]] = {"core hop": [], "js hop": [], "http": []}
            for _ in range(repeats):
                runs["core hop"].append(asyncio.run(_core_hop(server.url, samples)))
                runs["js hop"].append(asyncio.run(_js_hop(server.url, samples)))
                runs["http"].append(asyncio.run(_http(port, samples)))
        finally:
            for child in children:
                child.kill()
                child.wait()
    medians = {name: statistics.median(values) for name, values in runs.items()}
    for name, values in runs.items():
        print(f"{name:9s} median {medians[name]:.3f} ms   runs: " + " ".join(f"{v:.3f}" for v in values))
    floor = medians["http"] + 5 * medians["js hop"]
    allowed = 1.5 * in_process_ms
    print(f"route-A floor (http + 5 js hops): {floor:.2f} ms; issue 20 allows 1.5 x {in_process_ms} = "
          f"{allowed:.2f} ms for the whole turn over HTTP (floor / in-process = {floor / in_process_ms:.1f}x "
          f"before any handler runs)")
