"""Pure domain logic of the retrieval stage (routing, the evidence policy, release rules): no I/O."""
