"""``duocthu audit``: explain, re-verify and shadow-replay turns from the JetStream audit log."""
