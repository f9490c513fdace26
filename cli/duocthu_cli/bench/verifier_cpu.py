"""CPU time per route-A turn of each stage's handler, the verifier above all, in one process.

    duocthu bench verifier-cpu [--var-dir /tmp/vcpu-bench] [--repeats 7] [--questions 60]
        [--dump verdicts.json] [--profile verifier]

Why: at concurrency 8 on 2 cores the handlers' CPU caps throughput (issue 20), so the figure that matters
is CPU milliseconds per turn, not wall time.  The sample PDF is built and indexed in-process (the code
``duocthu bench query`` uses for its in-process pass); every route-A question of the sample is run once
through the four handlers to capture the message each stage receives, then each stage's handler is
called again on its captured inputs ``--repeats`` times, timed with ``time.process_time`` (CPU of the
whole process, all threads).  The verifier runs as the service does: with the live release's term
statistics (counted here from the release's chunks) and the everyday-word frequencies, no judge (the
extractive writer's claims are verbatim).  Printed: the median over repeats of CPU ms per turn, per stage.

``--dump`` writes every stage's output payload (message ids and clocks left out) so that two revisions
can be compared byte for byte: a change that makes the verifier cheaper must not change one verdict.
``--profile STAGE`` prints a cProfile of that stage's repeated calls instead of timing.
"""

from __future__ import annotations

import cProfile
import json
import pstats
import statistics
import time
from pathlib import Path
from typing import Any

from duocthu_cli.bench.inprocess import InProcessPipeline
from duocthu_cli.bench.questions import route_a_questions
from duocthu_cli.stack.sample_corpus import prepare_sample_pdf
from duocthu_cli.stack.sample_index import build_sample_index
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import AnswerDrafted, EvidenceRetrieved, TurnRequested, TurnUnderstood
from duocthu_runtime import StageContext, utcnow
from duocthu_verifier import build_handler as verifier_handler
from duocthu_verifier import build_statistics, live_terms

STAGES: dict[str, type[Message]] = {
    "understanding": TurnRequested, "retrieval": TurnUnderstood, "generation": EvidenceRetrieved,
    "verifier": AnswerDrafted,
}


def _handlers(pipeline: InProcessPipeline) -> dict[str, Any]:
    return {stage: pipeline.handlers[stage][cls] for stage, cls in STAGES.items()}


async def _call_all(handler: Any, stage: str, inputs: list[Message]) -> list[Message]:
    out: list[Message] = []
    for message in inputs:
        out.extend(await handler(message, StageContext(stage, message, utcnow())))
    return out


def _stable(message: Any) -> Any:
    """The output's payload, without what differs between two runs of the same input (ids, clocks)."""
    return {"schema": type(message).__name__, "payload": message.payload.model_dump(mode="json")}


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


async def run_verifier_cpu(*, var_dir: Path, repeats: int, questions: int, dump: str, profile: str) -> None:
    """Capture each stage's inputs over the route-A questions, then time (or profile) each handler on them."""
    sample = prepare_sample_pdf(var_dir, echo=lambda _: None)
    built = await build_sample_index(sample.path, var_dir)
    try:
        catalog = built.result.catalog
        pipeline = InProcessPipeline(catalog, built.retriever)
        # the verifier as the service composes it: the live release's statistics and the everyday words
        terms = live_terms()
        terms.current = build_statistics("bench", [c.text for c in built.result.chunks])
        pipeline.handlers["verifier"][AnswerDrafted] = verifier_handler(None, terms)  # (it seals with a fresh key)
        drugs = [(e.drug_id, e.drug_name, {k.value for k in e.section_keys}) for e in catalog.entries]
        asked = route_a_questions(drugs)[:questions]
        inputs: dict[str, list[Message]] = {stage: [] for stage in STAGES}
        decisions: dict[str, int] = {}
        for q in asked:
            trail: list[Message] = []
            done = await pipeline.ask(q.text, trail)
            decisions[f"{done.payload.decision}/{done.payload.reason}"] = \
                decisions.get(f"{done.payload.decision}/{done.payload.reason}", 0) + 1
            for message in trail:
                for stage, cls in STAGES.items():
                    if type(message) is cls:
                        inputs[stage].append(message)
        turns = len(asked)
        print(f"{turns} route-A turns; outcomes {decisions}; "
              f"inputs per stage {({s: len(m) for s, m in inputs.items()})}")
        handlers = _handlers(pipeline)
        if dump:
            outputs = {stage: [_stable(m) for m in await _call_all(handlers[stage], stage, inputs[stage])]
                       for stage in STAGES}
            _write(Path(dump), json.dumps(outputs, ensure_ascii=False, indent=1, sort_keys=True))
            print(f"outputs written to {dump}")
        if profile:
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(repeats):
                await _call_all(handlers[profile], profile, inputs[profile])
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
            return
        per_turn: dict[str, list[float]] = {stage: [] for stage in STAGES}
        for _ in range(repeats):
            for stage in STAGES:
                started = time.process_time()
                await _call_all(handlers[stage], stage, inputs[stage])
                per_turn[stage].append((time.process_time() - started) * 1000 / turns)
        total = [sum(values) for values in zip(*per_turn.values(), strict=True)]
        print(f"CPU ms per turn, median of {repeats} repeats (min–max):")
        for stage, values in [*per_turn.items(), ("all four handlers", total)]:
            print(f"  {stage:18s} {statistics.median(values):7.2f}  ({min(values):.2f}–{max(values):.2f})")
    finally:
        await built.close()

