"""Gateway: the HTTP API and web page, correlation of turns over the bus, the trace/history store.

The public face: what the ``duocthu`` command may use.
"""

from duocthu_gateway.main import create_app
from duocthu_gateway.settings import GatewaySettings

__all__ = ["GatewaySettings", "create_app"]
