"""Entry points of the ingest worker: its bus handler and the ``duocthu ingest`` command."""
