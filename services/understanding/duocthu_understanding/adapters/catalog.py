"""The live release's drug catalog, kept by every replica from the corpus stream.

Each replica watches the last ``corpus.v1.release.completed`` (an ordered
consumer starting at the latest message), so a new release replaces the
catalog without a restart and a fresh replica starts with the current one.
Implements :class:`duocthu_understanding.ports.CatalogSource`.
"""

from __future__ import annotations

from duocthu_contracts.corpus import DrugCatalog
from duocthu_contracts.messages import CorpusReleaseCompleted
from duocthu_runtime import Bus, get_logger
from duocthu_understanding.domain.matcher import DrugMatcher

log = get_logger(__name__)


class LiveCatalog:
    def __init__(self, catalog: DrugCatalog | None = None) -> None:
        self._live: tuple[DrugCatalog, DrugMatcher] | None = None
        self.release_id: str | None = None
        if catalog is not None:
            self.replace(catalog, "static")

    def current(self) -> tuple[DrugCatalog, DrugMatcher] | None:
        return self._live

    def replace(self, catalog: DrugCatalog, release_id: str) -> None:
        self._live = (catalog, DrugMatcher(catalog))
        self.release_id = release_id

    async def on_release(self, message: CorpusReleaseCompleted) -> None:
        payload = message.payload
        if payload.status != "live" or payload.catalog is None:
            return
        self.replace(payload.catalog, payload.release_id)
        log.info("catalog_loaded", release_id=payload.release_id, drugs=len(payload.catalog.entries))

    async def watch(self, bus: Bus) -> None:
        await bus.watch(CorpusReleaseCompleted, self.on_release)

    async def ready(self) -> tuple[bool, str]:
        if self._live is None:
            return False, "no live corpus release yet"
        return True, f"catalog of release {self.release_id}: {len(self._live[0].entries)} drugs"
