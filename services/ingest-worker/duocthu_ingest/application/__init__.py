"""Use cases of the ingest worker: the parse pipeline, job planning, embedding and batching, one job end to end."""
