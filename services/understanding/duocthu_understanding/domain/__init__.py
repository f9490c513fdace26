"""Pure domain logic of the understanding stage (cues, drug matching, patient facts, the frame builder): no I/O."""
