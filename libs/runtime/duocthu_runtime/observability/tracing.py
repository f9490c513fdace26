"""OpenTelemetry spans propagated across NATS hops through the envelope.

The envelope's ``traceparent`` is the only carrier: a stage extracts it to
parent its span and injects its own span into the messages it publishes.
Spans are exported over OTLP/HTTP only when ``OTEL_EXPORTER_OTLP_ENDPOINT``
is set; otherwise they are created (ids still propagate) but not exported.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Span
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

_PROPAGATOR = TraceContextTextMapPropagator()


def configure_tracing(service: str, exporter: SpanExporter | None = None) -> TracerProvider:
    """Install a tracer provider for ``service``; idempotent per process."""
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        if exporter is not None:
            current.add_span_processor(BatchSpanProcessor(exporter))
        return current
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    if exporter is None and os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider


def context_from_traceparent(traceparent: str | None) -> Context | None:
    if not traceparent:
        return None
    return _PROPAGATOR.extract({"traceparent": traceparent})


def current_traceparent() -> str | None:
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return carrier.get("traceparent")


def trace_id_hex(span: Span | None = None) -> str | None:
    ctx = (span or trace.get_current_span()).get_span_context()
    return format(ctx.trace_id, "032x") if ctx.is_valid else None


@contextmanager
def span(name: str, traceparent: str | None = None, **attributes: str | int | float | bool) -> Iterator[Span]:
    tracer = trace.get_tracer("duocthu")
    with tracer.start_as_current_span(
        name, context=context_from_traceparent(traceparent), attributes=attributes
    ) as current:
        yield current
