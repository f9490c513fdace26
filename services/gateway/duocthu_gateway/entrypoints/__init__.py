"""Entry points of the gateway: its HTTP routers (one per concern) and their error bodies."""
