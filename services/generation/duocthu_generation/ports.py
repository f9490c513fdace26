"""What the generation use case needs from the outside, as Protocols."""

from __future__ import annotations

from typing import Protocol

from duocthu_contracts.answer import Draft
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_providers import TurnBudget


class Writer(Protocol):
    """Writes a draft of claims from the evidence: extractively (no model) or through a chat model.

    Raises ``duocthu_providers.errors.LLMError`` subclasses when a model could
    not be consulted and :class:`~duocthu_generation.errors.MalformedDraft`
    when its output is not the answer schema.
    """

    async def write(self, request: WriterInput, budget: TurnBudget) -> Draft: ...
