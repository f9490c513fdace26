"""Process entry point of the gateway."""

from __future__ import annotations

import uvicorn

from duocthu_gateway.app import create_app
from duocthu_gateway.settings import GatewaySettings
from duocthu_runtime.observability.logging import configure_logging
from duocthu_runtime.observability.tracing import configure_tracing


def main() -> None:
    settings = GatewaySettings()
    configure_logging("gateway", settings.log_level, settings.log_format)
    configure_tracing("gateway")
    uvicorn.run(
        create_app(settings),
        host=settings.http_host,
        port=settings.http_port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=10,
    )


if __name__ == "__main__":
    main()
