"""Process entry point of the understanding stage."""

from __future__ import annotations

from duocthu_contracts.messages import TurnRequested
from duocthu_providers.llm.factory import make_chat_provider
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.service import ServiceSpec, run_service
from duocthu_runtime.settings import RuntimeSettings
from duocthu_understanding.adapters.catalog import LiveCatalog
from duocthu_understanding.adapters.llm_understanding import LlmDrugPicker
from duocthu_understanding.handlers import UnderstandingHandler

NAME = "understanding"


def build_spec(catalog: LiveCatalog | None = None) -> ServiceSpec:
    live = catalog or LiveCatalog()
    provider = make_chat_provider("answer")  # optional: only a configured model (not "extractive") is used
    handler = UnderstandingHandler(live, LlmDrugPicker(provider) if provider is not None else None)

    def register(stage: Stage) -> None:
        stage.consumes(TurnRequested, handler)

    return ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register,
                       on_startup=[live.watch], readiness=[live.ready])


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
