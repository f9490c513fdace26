"""Pure domain logic of the stage: no I/O."""
