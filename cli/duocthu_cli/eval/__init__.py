"""``duocthu eval``: routing, answers and parse batteries; ``duocthu bench``: latency and throughput."""
