"""Chat-model providers (Bedrock Converse, OpenAI-compatible) shared by the stages that call a model."""
