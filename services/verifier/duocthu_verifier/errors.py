"""Every failure the verifier stage names.

A judge that answers off-schema is not an entailment verdict: rather than
trust a half-read reply, the parser raises :class:`JudgeOutputError` and the
judge adapter records ``malformed_output`` for the claims it could not read. Failures of the model itself are the providers' own errors
(``duocthu_providers.errors``).
"""

from __future__ import annotations


class JudgeOutputError(ValueError):
    """The judge's output is not the JSON object the prompt asks for."""
