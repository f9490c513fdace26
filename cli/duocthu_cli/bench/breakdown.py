"""Where a turn's time goes outside the handlers: the gateway's phases, each bus hop, (de)serialisation.

Two sources, both from real turns:

* the gateway's ``Server-Timing`` header on every answered request (its own
  phases, every stage's own time and every hop between stages, from the
  completion's stage timings) against the latency the client saw — the
  difference is the HTTP layer (connection, request parsing, response
  serialisation);
* the messages of the same questions run through the same handlers in one
  process (``InProcessPipeline``), encoded and decoded here with the bus's own
  ``encode``/``decode``: what (de)serialising each hop's message costs.

A hop (``hop_<stage>``: the cause stamped → the stage holding it) contains the
sender's encode and publish, JetStream storing the message, the pull
consumer's delivery and the dispatch to the handler; the sender's PubAck wait
and ack are *not* on it (the next stage is already running) — ``puback`` is the
gateway's own wait for the turn's PubAck, which stages pay the same way before
acking their input.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from duocthu_cli.bench.stats import percentile
from duocthu_contracts.envelope import Message
from duocthu_runtime import decode, encode

#: The gateway's own phases, in the order a request passes them (domain/timing.py in the gateway).
GATEWAY_PHASES = ("ratelimit", "owner", "state", "puback", "completion", "render", "record", "total")


def _median(values: Sequence[float]) -> float:
    return percentile(values, 50)


def breakdown(timings: Sequence[dict[str, float]]) -> dict[str, Any]:
    """Medians per component over requests that carried a ``Server-Timing`` header."""
    if not timings:
        return {"requests": 0}
    names = sorted({k for t in timings for k in t if k.startswith(("hop_", "stage_"))})
    out: dict[str, Any] = {"requests": len(timings), "client": _median([t["client"] for t in timings])}
    out["http_layer"] = _median([t["client"] - t["total"] for t in timings if "total" in t])
    for phase in GATEWAY_PHASES:
        values = [t[phase] for t in timings if phase in t]
        if values:
            out[phase] = _median(values)
    out["gateway_other"] = _median([t["total"] - sum(t.get(p, 0.0) for p in GATEWAY_PHASES[:-1])
                                    for t in timings if "total" in t])
    for name in names:
        out[name] = _median([t[name] for t in timings if name in t])
    out["hops_sum"] = _median([sum(v for k, v in t.items() if k.startswith("hop_")) for t in timings])
    out["stages_sum"] = _median([sum(v for k, v in t.items() if k.startswith("stage_")) for t in timings])
    return out


def serialisation(messages: Sequence[Message], repeats: int = 5) -> dict[str, dict[str, float]]:
    """Median encode and decode (schema check + validation) per message type, and their bytes."""
    per: dict[str, dict[str, list[float]]] = {}
    for message in messages:
        cls = type(message)
        row = per.setdefault(cls.__name__, {"encode_ms": [], "decode_ms": [], "bytes": []})
        for _ in range(repeats):
            began = time.perf_counter()
            raw = encode(message)
            encoded = time.perf_counter()
            decode(raw, cls)
            row["encode_ms"].append((encoded - began) * 1000)
            row["decode_ms"].append((time.perf_counter() - encoded) * 1000)
        row["bytes"].append(float(len(raw)))
    return {name: {k: _median(v) for k, v in row.items()} for name, row in per.items()}


def render_breakdown(parts: dict[str, Any], codec: dict[str, dict[str, float]]) -> list[str]:
    """The report's lines: one component a line, medians in ms."""
    lines = [f"breakdown of a sequential turn over HTTP (medians of {parts.get('requests', 0)} turns, ms):"]
    if not parts.get("requests"):
        return [*lines, "  no request carried a Server-Timing header (gateway SERVER_TIMING off?)"]
    lines.append(f"  client latency                 {parts['client']:8.2f}")
    lines.append(f"  HTTP layer (client - gateway)  {parts['http_layer']:8.2f}")
    lines.append(f"  gateway total                  {parts['total']:8.2f}")
    for phase in GATEWAY_PHASES[:-1]:
        if phase in parts:
            lines.append(f"    {phase:<28}{parts[phase]:8.2f}")
    lines.append(f"    {'other (build, metrics)':<28}{parts['gateway_other']:8.2f}")
    lines.append(f"  inside the completion wait: hops {parts['hops_sum']:.2f}, stages {parts['stages_sum']:.2f}")
    for name in sorted(k for k in parts if k.startswith(("hop_", "stage_"))):
        lines.append(f"    {name:<28}{parts[name]:8.2f}")
    if codec:
        lines.append("  (de)serialisation per message (this process, the bus's encode/decode):")
        for name, row in codec.items():
            lines.append(f"    {name:<22} {row['bytes']:7.0f} B  encode {row['encode_ms']:6.3f}  "
                         f"decode {row['decode_ms']:6.3f}")
    return lines
