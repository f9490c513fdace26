"""Composition root of the understanding stage: the one module that wires adapters to use cases."""

from __future__ import annotations

from duocthu_contracts.corpus import DrugCatalog
from duocthu_contracts.messages import TurnRequested
from duocthu_providers import ChatProvider, make_chat_provider
from duocthu_runtime import RuntimeSettings, ServiceSpec, Stage, run_service
from duocthu_understanding.adapters.catalog import LiveCatalog
from duocthu_understanding.adapters.drug_picker import LlmDrugPicker
from duocthu_understanding.application.understanding import Understanding
from duocthu_understanding.entrypoints.bus import UnderstandingHandler

NAME = "understanding"


def build_handler(catalog: LiveCatalog, provider: ChatProvider | None = None) -> UnderstandingHandler:
    """The stage's handler over ``catalog``; with a chat ``provider`` the optional model step runs too."""
    return UnderstandingHandler(Understanding(catalog, LlmDrugPicker(provider) if provider is not None else None))


def handler_for(catalog: DrugCatalog) -> UnderstandingHandler:
    """The stage's handler over a fixed catalog, without the model step (in-process pipelines)."""
    return build_handler(LiveCatalog(catalog))


def build_spec(catalog: LiveCatalog | None = None) -> ServiceSpec:
    live = catalog or LiveCatalog()
    handler = build_handler(live, make_chat_provider("answer"))  # only a configured model (not "extractive")

    def register(stage: Stage) -> None:
        stage.consumes(TurnRequested, handler)

    return ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register,
                       on_startup=[live.watch], readiness=[live.ready])


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
