"""Adapters of the verifier stage: the entailment judge over a chat provider."""
