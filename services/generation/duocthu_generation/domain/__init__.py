"""Pure domain logic of the generation stage (the plan, the extractive writer, prompts, parsing): no I/O."""
