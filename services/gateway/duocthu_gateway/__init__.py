"""Gateway: HTTP API, web UI, correlation of turns, trace/history store."""
