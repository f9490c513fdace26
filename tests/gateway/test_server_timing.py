"""The Server-Timing header's arithmetic: stage times, the hops between them, and a parse round trip."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from duocthu_cli.bench.breakdown import breakdown
from duocthu_cli.bench.stats import parse_server_timing
from duocthu_contracts.envelope import StageTiming
from duocthu_gateway.domain.timing import TurnTimings, hop_phases, server_timing

T0 = datetime(2026, 12, 4, 7, 0, tzinfo=UTC)


def _at(ms: float) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def _stage(name: str, start: float, end: float) -> StageTiming:
    return StageTiming(stage=name, started_at=_at(start), finished_at=_at(end), ms=end - start)


def test_hops_are_the_gaps_between_a_cause_and_the_next_stage_and_a_repeated_stage_is_numbered() -> None:
    stages = [_stage("understanding", 2.0, 3.0), _stage("retrieval", 4.5, 10.0), _stage("generation", 11.0, 11.5),
              _stage("verifier", 13.0, 15.0), _stage("generation", 16.0, 17.0), _stage("verifier", 18.0, 19.0)]
    phases = dict(hop_phases(T0, stages, _at(21.25)))
    assert phases["hop_understanding"] == 2.0
    assert phases["stage_understanding"] == 1.0
    assert phases["hop_retrieval"] == 1.5
    assert phases["stage_retrieval"] == 5.5
    assert phases["hop_verifier"] == 1.5
    assert phases["hop_generation2"] == 1.0
    assert phases["stage_verifier2"] == 1.0
    assert phases["hop_gateway"] == 2.25
    assert len(phases) == 2 * len(stages) + 1


def test_header_round_trips_through_the_bench_parser_and_the_breakdown_subtracts_the_gateway() -> None:
    timings = TurnTimings()
    timings.add("ratelimit", 0.5)
    timings.add("puback", 1.25)
    timings.add("completion", 10.0)
    timings.add("record", 3.0)
    timings.phases.extend(hop_phases(T0, [_stage("understanding", 1.0, 2.0)], _at(3.0)))
    timings.add("total", 15.0)
    parsed = parse_server_timing(timings.header())
    assert parsed == {"ratelimit": 0.5, "puback": 1.25, "completion": 10.0, "record": 3.0, "hop_understanding": 1.0,
                      "stage_understanding": 1.0, "hop_gateway": 1.0, "total": 15.0}
    assert server_timing([("a", 1.0)]) == "a;dur=1.000"
    parts = breakdown([{**parsed, "client": 18.0}, {**parsed, "client": 20.0}, {**parsed, "client": 22.0}])
    assert parts["http_layer"] == 5.0  # the median client latency minus the gateway's total
    assert parts["gateway_other"] == 0.25  # total minus the named phases
    assert parts["hops_sum"] == 2.0
    assert parts["stages_sum"] == 1.0
