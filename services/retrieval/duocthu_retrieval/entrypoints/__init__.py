"""Entry points of the retrieval stage: bus handlers (turns, corpus batches, requests) and the ``duocthu index`` commands."""
