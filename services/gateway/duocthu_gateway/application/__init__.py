"""Use cases of the gateway: asking (one turn over the bus) and conversations (history, feedback)."""
