"""Pure gateway logic: rendering responses, reason texts, conversation state."""
