"""Pure domain logic of ingestion: no I/O."""
