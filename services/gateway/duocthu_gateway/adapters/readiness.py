"""Whether this gateway replica can answer: connected, the streams declared, a ready replica of every stage.

Stage presence is read from the NATS KV bucket every stage announces itself
in (:meth:`Bus.live_stages`).  Implements :class:`duocthu_gateway.ports.Readiness`.
"""

from __future__ import annotations

from collections.abc import Sequence

from nats.errors import Error as NatsError

from duocthu_contracts import subjects as s
from duocthu_runtime.bus.connection import Bus


class BusReadiness:
    def __init__(self, bus: Bus, required_stages: Sequence[str]) -> None:
        self.bus = bus
        self.required_stages = tuple(required_stages)

    async def check(self) -> tuple[bool, dict[str, str]]:
        report: dict[str, str] = {"bus": "connected" if self.bus.connected else "disconnected"}
        ok = self.bus.connected
        if not ok:
            return False, report
        for stream in (s.AUDIT_STREAM, s.INGEST_STREAM, s.CORPUS_STREAM):
            try:
                await self.bus.js.stream_info(stream)
                report[f"stream:{stream}"] = "present"
            except (NatsError, TimeoutError):
                report[f"stream:{stream}"] = "missing"
                ok = False
        live = await self.bus.live_stages()
        for stage in self.required_stages:
            count = live.get(stage, 0)
            report[f"stage:{stage}"] = f"{count} ready"
            ok = ok and count > 0
        return ok, report
