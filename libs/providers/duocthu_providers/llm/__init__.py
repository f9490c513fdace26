"""Chat-model providers (Bedrock Converse, OpenAI-compatible) and the per-turn LLM budget."""
