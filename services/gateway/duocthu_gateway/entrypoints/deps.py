"""What the HTTP entry points are given: the use cases and ports, wired by :mod:`duocthu_gateway.main`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from duocthu_gateway.application.asking import Asking
from duocthu_gateway.application.conversations import Conversations
from duocthu_gateway.domain.clients import Network
from duocthu_gateway.ports import Crops, IngestJobs, Monographs, Publisher, RateLimit, Readiness, TurnExchange
from duocthu_gateway.settings import GatewaySettings


@dataclass(frozen=True)
class Gateway:
    settings: GatewaySettings
    asking: Asking
    conversations: Conversations
    turns: TurnExchange
    limiter: RateLimit
    monographs: Monographs
    crops: Crops
    jobs: Publisher
    readiness: Readiness
    ingest_jobs: IngestJobs
    trusted_proxies: tuple[Network, ...] = ()


def gateway(request: Request) -> Gateway:
    wired: Gateway = request.app.state.gateway
    return wired


GatewayDep = Annotated[Gateway, Depends(gateway)]
