"""The duocthu command line: the composition root of tools (run, ask, ingest, audit, eval, bench)."""
