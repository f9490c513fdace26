"""Composition root of the gateway: the one module that wires adapters to use cases and routers.

``python -m duocthu_gateway.main`` serves HTTP; ``python -m duocthu_gateway.main migrate`` brings the
store's schema to the latest revision and exits (the Kubernetes migration Job).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from duocthu_gateway.adapters.correlator import TurnCorrelator
from duocthu_gateway.adapters.crops import CropRenderer
from duocthu_gateway.adapters.ingest_jobs import IngestJobBoard
from duocthu_gateway.adapters.monographs import MonographClient
from duocthu_gateway.adapters.ratelimit import RateLimiter
from duocthu_gateway.adapters.readiness import BusReadiness
from duocthu_gateway.adapters.seal_keys import ConfiguredKeys
from duocthu_gateway.adapters.store import Store, database_url
from duocthu_gateway.application.admission import Admission
from duocthu_gateway.application.asking import Asking
from duocthu_gateway.application.conversations import Conversations
from duocthu_gateway.domain.clients import parse_networks
from duocthu_gateway.entrypoints import admin, browse, conversations, health, query, release, web
from duocthu_gateway.entrypoints.deps import Gateway
from duocthu_gateway.entrypoints.errors import install_error_handlers, publish_error_codes
from duocthu_gateway.entrypoints.limits import BodyLimits
from duocthu_gateway.errors import StoreUnavailable
from duocthu_gateway.settings import TURN_STAGES, GatewaySettings
from duocthu_runtime import Bus, configure_logging, configure_tracing, get_logger

log = get_logger(__name__)


def open_store(settings: GatewaySettings) -> Store:
    return Store(database_url(settings.database_url, str(settings.var_dir)))


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    settings = settings or GatewaySettings()
    seals = ConfiguredKeys(settings.keyring())  # no key, no gateway: it could show no answer
    bus = Bus(settings, client_name=f"gateway:{settings.instance_id}")
    store = open_store(settings)
    turns = TurnCorrelator(bus, settings.instance_id)
    readiness = BusReadiness(bus, settings.required_stages, turn_stages=TURN_STAGES)
    ingest_jobs = IngestJobBoard(bus)
    chats = Conversations(store, settings.history_turns, write_behind=settings.history_write_behind)
    gateway = Gateway(
        settings=settings,
        asking=Asking(turns, chats, admission=Admission(seals), origin=settings.instance_id,
                      deadline_s=settings.turn_deadline_s, llm_calls=settings.turn_llm_calls, availability=readiness),
        conversations=chats, turns=turns, limiter=RateLimiter(bus, settings.rate_limit_per_minute),
        monographs=MonographClient(bus),
        crops=CropRenderer(settings.source_pdf or Path(settings.var_dir) / "sample-formulary.pdf",
                           Path(settings.var_dir) / "crops"),
        jobs=bus, readiness=readiness, ingest_jobs=ingest_jobs, trusted_proxies=parse_networks(settings.trusted_proxies),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await bus.connect()
        await turns.start()
        await ingest_jobs.start()
        try:
            await store.create()
        except StoreUnavailable:  # fail open: answers still flow, history and traces are counted as lost
            log.exception("store_unavailable", url=store.url.split("@")[-1])
        log.info("gateway_started", instance=settings.instance_id)
        try:
            yield
        finally:
            await turns.stop()
            await ingest_jobs.stop()
            try:  # every turn answered is in the store before it closes (a hung store does not hang the exit)
                await asyncio.wait_for(chats.written(), timeout=5)
            except TimeoutError:
                log.warning("turn_writes_abandoned_at_shutdown")
            with contextlib.suppress(StoreUnavailable):
                await store.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(bus.stop(), timeout=5)

    app = FastAPI(title="duocthu gateway", version="0.1.0", lifespan=lifespan)
    app.state.gateway = gateway
    install_error_handlers(app)
    app.add_middleware(BodyLimits, timeout_s=settings.body_timeout_s, max_bytes=settings.max_body_bytes)
    for router in (query.router, conversations.router, browse.router, release.router, admin.router, web.router,
                   health.router):
        app.include_router(router)
    publish_error_codes(app)
    return app


def serve() -> None:
    settings = GatewaySettings()
    configure_logging("gateway", settings.log_level, settings.log_format)
    configure_tracing("gateway")
    # proxy_headers off: uvicorn would otherwise rewrite the peer address from X-Forwarded-For for any
    # loopback peer; the gateway decides whom to believe itself (TRUSTED_PROXIES, domain/clients.py).
    config = uvicorn.Config(create_app(settings), host=settings.http_host, port=settings.http_port,
                            log_level="warning", access_log=False, timeout_graceful_shutdown=10, proxy_headers=False)
    server = uvicorn.Server(config)
    server.run(sockets=[shared_socket(settings.http_host, settings.http_port)] if settings.http_reuse_port else None)


def shared_socket(host: str, port: int) -> socket.socket:
    """A listening socket other gateway replicas may bind too (SO_REUSEPORT): one dying leaves the port served."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def migrate() -> None:
    """Bring the store's schema to the latest revision (idempotent; every replica also does it on start)."""

    async def run() -> None:
        store = open_store(GatewaySettings())
        try:
            await store.create()
        finally:
            await store.close()

    asyncio.run(run())
    print("store schema is at the latest revision")


def main() -> None:
    if sys.argv[1:] == ["migrate"]:
        migrate()
    elif sys.argv[1:]:
        sys.exit(f"usage: python -m duocthu_gateway.main [migrate] (got {' '.join(sys.argv[1:])})")
    else:
        serve()


if __name__ == "__main__":
    main()
