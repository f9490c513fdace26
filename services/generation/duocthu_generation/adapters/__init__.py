"""Adapters of the generation stage: the model writer over a chat provider."""
