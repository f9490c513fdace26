"""Generation stage: structured claims (extractive, bedrock, openai)."""
