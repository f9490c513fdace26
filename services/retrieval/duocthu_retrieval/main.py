"""Process entry point of the retrieval stage."""

from __future__ import annotations

from duocthu_contracts.messages import TurnUnderstood
from duocthu_runtime.bus.stage import Stage, not_implemented
from duocthu_runtime.service import ServiceSpec, run_service
from duocthu_runtime.settings import RuntimeSettings

NAME = "retrieval"


def register(stage: Stage) -> None:
    stage.consumes(TurnUnderstood, not_implemented)


def main() -> None:
    run_service(ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register))


if __name__ == "__main__":
    main()
