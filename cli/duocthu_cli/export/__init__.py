"""``duocthu contracts export``: JSON Schema and AsyncAPI from the contracts, the NATS permission table into the
deploy configs."""
