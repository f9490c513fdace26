"""Pure gateway logic: rendering responses, reason texts."""
