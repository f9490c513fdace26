"""Every failure the generation stage names.

A writer's failure ends the turn with its own reason: a model that could not
be consulted is ``provider_unavailable`` (raised by the provider as
``duocthu_providers.errors.LLMError``), one that answered off-schema is
``malformed_output`` (:class:`MalformedDraft`); a failing model never
degrades into a source dump.
"""

from __future__ import annotations


class MalformedDraft(ValueError):
    """The model's output is not the answer schema (abstain ``malformed_output``)."""
