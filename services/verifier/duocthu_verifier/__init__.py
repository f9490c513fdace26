"""Verifier stage: deterministic grounding, entailment judge, completeness."""
