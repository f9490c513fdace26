"""Adapters of the gateway: all its I/O (the store, the bus, the rate-limit counters, PDF crops)."""
