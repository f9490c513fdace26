"""Hosting a stage as a process: bus, health/metrics port, presence, shutdown.

Every service's ``main.py`` builds a :class:`ServiceSpec` and calls
:func:`run_service`; the only differences between services are their
handlers, their start-up work and their readiness checks.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from faststream.exceptions import FastStreamException
from nats.errors import Error as NatsError
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from duocthu_runtime.bus.bus import Bus
from duocthu_runtime.bus.presence import PRESENCE_TTL_S
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.observability.logging import configure_logging, get_logger
from duocthu_runtime.observability.tracing import configure_tracing
from duocthu_runtime.settings import RuntimeSettings

log = get_logger(__name__)

#: After a failed announcement, try again this soon: the entry must be renewed before its TTL runs out.
ANNOUNCE_RETRY_S = 1.0

ReadinessCheck = Callable[[], Awaitable[tuple[bool, str]]]


@dataclass
class ServiceSpec:
    """What makes one service different from another."""

    name: str
    settings: RuntimeSettings
    register: Callable[[Stage], None]
    on_startup: Sequence[Callable[[Bus], Awaitable[None]]] = ()
    on_shutdown: Sequence[Callable[[], Awaitable[None]]] = ()
    readiness: Sequence[ReadinessCheck] = ()
    extra_routes: Sequence[BaseRoute] = ()


@dataclass
class ServiceRuntime:
    spec: ServiceSpec
    bus: Bus
    stage: Stage
    started: bool = False
    _tasks: list[asyncio.Task[Any]] = field(default_factory=list)

    async def readiness(self) -> tuple[bool, dict[str, str]]:
        report: dict[str, str] = {"bus": "connected" if self.bus.connected else "disconnected"}
        ok = self.bus.connected and self.started
        if not self.started:
            report["startup"] = "in progress"
        for check in self.spec.readiness:
            try:
                passed, detail = await check()
            except Exception as exc:  # an entry point (/readyz): a broken check reports, never crashes the probe
                log.exception("readiness_check_failed", check=getattr(check, "__name__", "check"))
                passed, detail = False, f"{type(exc).__name__}: {exc}"
            report[getattr(check, "__name__", "check")] = detail
            ok = ok and passed
        return ok, report

    async def announce_now(self) -> None:
        """Announce at once (after a reconnection: a restarted server has an empty presence bucket)."""
        ready, _ = await self.readiness()
        await self.bus.announce(self.spec.name, self.spec.settings.instance_id, ready)

    async def _announce_forever(self) -> None:
        failures = 0
        while True:
            pause = PRESENCE_TTL_S / 3
            try:
                ready, _ = await self.readiness()
                await self.bus.announce(self.spec.name, self.spec.settings.instance_id, ready)
            except Exception:  # the top of a background task: a failed announcement is retried, never fatal
                log.warning("presence_announce_failed", exc_info=True)
                failures += 1
                pause = ANNOUNCE_RETRY_S  # e.g. the bucket's stream electing a leader: renew as soon as it can
            else:
                if failures:  # when presence was renewed again tells how long the stage looked absent
                    log.info("presence_renewed", after_failures=failures, ready=ready)
                failures = 0
            await asyncio.sleep(pause)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        await self.bus.connect()
        for hook in self.spec.on_startup:
            await hook(self.bus)
        await self.bus.start()
        self.started = True
        self._tasks.append(asyncio.create_task(self._announce_forever()))
        log.info("service_started", instance=self.spec.settings.instance_id)
        try:
            yield
        finally:
            for task in self._tasks:
                task.cancel()
            with contextlib.suppress(NatsError, FastStreamException, TimeoutError):
                await self.bus.announce(self.spec.name, self.spec.settings.instance_id, False)
            with contextlib.suppress(NatsError, FastStreamException, TimeoutError):
                await asyncio.wait_for(self.bus.stop(), timeout=5)
            for shutdown in self.spec.on_shutdown:
                await shutdown()
            log.info("service_stopped")


def build_runtime(spec: ServiceSpec) -> ServiceRuntime:
    bus = Bus(spec.settings, client_name=f"{spec.name}:{spec.settings.instance_id}")
    stage = Stage(spec.name, bus)
    spec.register(stage)
    runtime = ServiceRuntime(spec, bus, stage)
    bus.on_reconnect(runtime.announce_now)
    return runtime


def health_routes(runtime: ServiceRuntime) -> list[BaseRoute]:
    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok", "service": runtime.spec.name})

    async def readyz(_: Request) -> Response:
        ok, report = await runtime.readiness()
        return JSONResponse({"ready": ok, "checks": report}, status_code=200 if ok else 503)

    async def metrics(_: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return [Route("/healthz", healthz), Route("/readyz", readyz), Route("/metrics", metrics)]


def build_app(runtime: ServiceRuntime) -> Starlette:
    return Starlette(routes=[*health_routes(runtime), *runtime.spec.extra_routes], lifespan=runtime.lifespan)


def run_service(spec: ServiceSpec) -> None:
    settings = spec.settings
    configure_logging(spec.name, settings.log_level, settings.log_format)
    configure_tracing(spec.name)
    app = build_app(build_runtime(spec))
    uvicorn.run(
        app,
        host=settings.health_host,
        port=settings.health_port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=10,
    )
