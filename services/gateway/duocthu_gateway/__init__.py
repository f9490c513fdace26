"""Gateway: the HTTP API and web page, correlation of turns over the bus, the trace/history store.

The public face: what the ``duocthu`` command may use (the store and the turn record for
``duocthu bench store-write``, which times the record written before each answer).
"""

from duocthu_gateway.adapters.store import Store, database_url
from duocthu_gateway.domain.conversation import turn_record
from duocthu_gateway.main import create_app
from duocthu_gateway.settings import GatewaySettings

__all__ = ["GatewaySettings", "Store", "create_app", "database_url", "turn_record"]
