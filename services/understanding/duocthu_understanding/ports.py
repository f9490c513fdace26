"""What the understanding use case needs from the outside, as Protocols."""

from __future__ import annotations

from typing import Protocol

from duocthu_contracts.corpus import DrugCatalog
from duocthu_providers import TurnBudget
from duocthu_understanding.domain.matcher import DrugMatcher


class CatalogSource(Protocol):
    """The live release's drug catalog and its matcher (``None`` before the first release)."""

    def current(self) -> tuple[DrugCatalog, DrugMatcher] | None: ...


class DrugPicker(Protocol):
    """The optional model step: which catalog drugs a question means (``[]``: let the deterministic frame stand)."""

    async def pick(self, question: str, catalog: DrugCatalog, budget: TurnBudget) -> list[str]: ...
