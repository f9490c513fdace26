"""Runtime glue of duocthu services: the public face.

Services and the ``duocthu`` command import what they need from here (and the
development stack's processes from :mod:`duocthu_runtime.devstack`, the NATS
permission table from :mod:`duocthu_runtime.access`), never from a submodule,
so the modules behind a name can be rearranged without touching a service.

What is here, by kind: the bus (:class:`Bus`; messages stamped with
:func:`new_turn`/:func:`new_message`, read with :func:`decode`), a pipeline
stage (:class:`Stage`, :class:`StageContext`) and the process that hosts it
(:class:`ServiceSpec`, :func:`run_service`), settings, errors, logs, traces
and metrics, the progress display of long commands, content hashes.

Each name is imported on first use (PEP 562 ``__getattr__``): the bus, the
service host and tracing pull in FastStream, uvicorn and OpenTelemetry,
seconds of start-up that a command needing only :class:`JobProgress` or
:func:`utcnow` must not pay. :data:`_FACE` says where each name lives; the
``TYPE_CHECKING`` imports say the same to the type checker (``X as X``: an
explicit re-export), and ``tests/platform/test_runtime_face.py`` keeps the two
in step.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from duocthu_runtime.bus.bus import Bus as Bus
    from duocthu_runtime.bus.connection import QUICK_REQUEST_S as QUICK_REQUEST_S
    from duocthu_runtime.bus.envelope import derive as derive
    from duocthu_runtime.bus.envelope import derived_id as derived_id
    from duocthu_runtime.bus.envelope import new_id as new_id
    from duocthu_runtime.bus.envelope import new_message as new_message
    from duocthu_runtime.bus.envelope import new_turn as new_turn
    from duocthu_runtime.bus.envelope import utcnow as utcnow
    from duocthu_runtime.bus.presence import PRESENCE_TTL_S as PRESENCE_TTL_S
    from duocthu_runtime.bus.stage import Handler as Handler
    from duocthu_runtime.bus.stage import Stage as Stage
    from duocthu_runtime.bus.stage import StageContext as StageContext
    from duocthu_runtime.bus.subjects import addressed_subject as addressed_subject
    from duocthu_runtime.bus.subjects import origin_token as origin_token
    from duocthu_runtime.bus.subjects import subject_for_type as subject_for_type
    from duocthu_runtime.bus.subjects import wildcard_subject as wildcard_subject
    from duocthu_runtime.bus.topology import flow_of as flow_of
    from duocthu_runtime.bus.topology import produced_by as produced_by
    from duocthu_runtime.bus.topology import readers_of as readers_of
    from duocthu_runtime.bus.versioning import decode as decode
    from duocthu_runtime.bus.versioning import encode as encode
    from duocthu_runtime.errors import MessageRejected as MessageRejected
    from duocthu_runtime.errors import NatsServerError as NatsServerError
    from duocthu_runtime.errors import NoReply as NoReply
    from duocthu_runtime.errors import SealKeyError as SealKeyError
    from duocthu_runtime.errors import translating as translating
    from duocthu_runtime.hashing import file_sha256 as file_sha256
    from duocthu_runtime.observability.logging import configure_logging as configure_logging
    from duocthu_runtime.observability.logging import get_logger as get_logger
    from duocthu_runtime.observability.metrics import BUS_REJECTED as BUS_REJECTED
    from duocthu_runtime.observability.tracing import configure_tracing as configure_tracing
    from duocthu_runtime.observability.tracing import current_traceparent as current_traceparent
    from duocthu_runtime.observability.tracing import span as span
    from duocthu_runtime.observability.tracing import trace_id_hex as trace_id_hex
    from duocthu_runtime.progress import JobProgress as JobProgress
    from duocthu_runtime.service import ServiceSpec as ServiceSpec
    from duocthu_runtime.service import run_service as run_service
    from duocthu_runtime.settings import RuntimeSettings as RuntimeSettings
    from duocthu_runtime.settings import inbox_prefix_for as inbox_prefix_for

#: module -> the names of the face it defines
_FACE: dict[str, tuple[str, ...]] = {
    "duocthu_runtime.bus.bus": ("Bus",),
    "duocthu_runtime.bus.connection": ("QUICK_REQUEST_S",),
    "duocthu_runtime.bus.envelope": ("derive", "derived_id", "new_id", "new_message", "new_turn", "utcnow"),
    "duocthu_runtime.bus.presence": ("PRESENCE_TTL_S",),
    "duocthu_runtime.bus.stage": ("Handler", "Stage", "StageContext"),
    "duocthu_runtime.bus.subjects": ("addressed_subject", "origin_token", "subject_for_type", "wildcard_subject"),
    "duocthu_runtime.bus.topology": ("flow_of", "produced_by", "readers_of"),
    "duocthu_runtime.bus.versioning": ("decode", "encode"),
    "duocthu_runtime.errors": ("MessageRejected", "NatsServerError", "NoReply", "SealKeyError", "translating"),
    "duocthu_runtime.hashing": ("file_sha256",),
    "duocthu_runtime.observability.logging": ("configure_logging", "get_logger"),
    "duocthu_runtime.observability.metrics": ("BUS_REJECTED",),
    "duocthu_runtime.observability.tracing": ("configure_tracing", "current_traceparent", "span", "trace_id_hex"),
    "duocthu_runtime.progress": ("JobProgress",),
    "duocthu_runtime.service": ("ServiceSpec", "run_service"),
    "duocthu_runtime.settings": ("RuntimeSettings", "inbox_prefix_for"),
}
_MODULE_OF = {name: module for module, names in _FACE.items() for name in names}

__all__ = sorted(_MODULE_OF)  # noqa: PLE0605 - the face is _FACE, written once


if not TYPE_CHECKING:  # to the type checker an unknown name stays an error, not Any

    def __getattr__(name: str) -> Any:
        """Import the module that defines ``name`` (once: the value is then a plain attribute of this package)."""
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
