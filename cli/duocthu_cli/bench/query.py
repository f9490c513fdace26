"""``duocthu bench query``: latency and throughput over HTTP, the bus's share, and the naive RAG baseline.

Everything runs on the book the stack serves (the sample formulary, or the
synthetic full-size book): the running stack answers over HTTP; the same
handlers answer in one process over an index built here from the same PDF
(the bus overhead is the difference, taken apart per hop with
``--breakdown``); the naive baseline reads the same PDF.  Figures are medians over repeated requests, never one timing.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from duocthu_cli.bench import breakdown as bd
from duocthu_cli.bench.inprocess import InProcessPipeline
from duocthu_cli.bench.load import run_load
from duocthu_cli.bench.naive import NaiveRag, contains_section, foreign_numbers, share
from duocthu_cli.bench.questions import BenchQuestion, condition_questions, route_a_questions
from duocthu_cli.bench.stats import summary_ms
from duocthu_cli.stack.sample_index import SampleIndex, build_sample_index
from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import TurnCompleted
from duocthu_providers.embedding.factory import make_embedder
from duocthu_retrieval import RetrievalSettings
from duocthu_runtime import JobProgress


def _section_texts(truth_path: Path) -> dict[tuple[str, str], str]:
    data = json.loads(truth_path.read_text(encoding="utf-8"))
    return {(m["drug_id"], key): text for m in data["monographs"] for key, text in m["sections"].items()}


def _ours_hit(done: TurnCompleted, q: BenchQuestion) -> bool:
    return any(e.drug_id == q.drug_id and e.section_key is q.section_key for e in done.payload.evidence)


async def _inprocess(pdf: Path, var_dir: Path, questions_limit: int) -> tuple[InProcessPipeline, list[BenchQuestion],
                                                                              SampleIndex]:
    built = await build_sample_index(pdf, var_dir)
    catalog = built.result.catalog
    drugs = [(e.drug_id, e.drug_name, {k.value for k in e.section_keys}) for e in catalog.entries]
    questions = route_a_questions(drugs)[:questions_limit]
    return InProcessPipeline(catalog, built.retriever), questions, built


def run_query_bench(url: str, pdf: Path, truth: Path, var_dir: Path, *, concurrency: int, requests: int,
                    questions_limit: int = 60, repeats: int = 3, naive: bool = True, breakdown: bool = False,
                    hybrid: int = 0) -> dict[str, Any]:
    """``breakdown``: take the sequential turns apart (gateway phases, hops, (de)serialisation);
    ``hybrid``: also time that many condition-to-drug turns (route C), sequentially over HTTP."""
    async def main() -> dict[str, Any]:
        pipeline, questions, index = await _inprocess(pdf, var_dir, questions_limit)
        texts = [q.text for q in questions]
        sections = _section_texts(truth)
        conditions = condition_questions(truth, hybrid) if hybrid else []
        # in one process, sequential: `repeats` passes over the questions
        inproc_ms: list[float] = []
        inproc_hybrid_ms: list[float] = []
        ours_hits: list[bool] = []
        ours_foreign: list[bool] = []
        trail: list[Message] = []
        with JobProgress("bench query: in one process", repeats * (len(questions) + len(conditions)),
                         unit="turns") as progress:
            for rep in range(repeats):
                for q in progress.track(questions):
                    started = time.perf_counter()
                    done = await pipeline.ask(q.text, trail if rep == 0 else None)
                    inproc_ms.append((time.perf_counter() - started) * 1000)
                    if rep == 0:
                        ours_hits.append(_ours_hit(done, q))
                        expected = sections.get((q.drug_id, q.section_key.value), "")
                        numbers = " ".join(c.text for c in done.payload.claims)
                        ours_foreign.append(bool(foreign_numbers(numbers, expected)) if done.payload.claims else False)
                for text in progress.track(conditions):
                    started = time.perf_counter()
                    await pipeline.ask(text, trail if rep == 0 else None)
                    inproc_hybrid_ms.append((time.perf_counter() - started) * 1000)
        await index.close()
        # over HTTP and the bus: sequential (for the overhead) and concurrent (for throughput)
        sequential = await run_load(url, texts, concurrency=1, requests=len(texts) * repeats)
        report: dict[str, Any] = {"questions": len(questions), "inprocess_ms": summary_ms(inproc_ms),
                                  "http_sequential": sequential.report()}
        if conditions:
            over_http = await run_load(url, conditions, concurrency=1, requests=len(conditions) * repeats)
            report["hybrid"] = {"questions": len(conditions), "inprocess_ms": summary_ms(inproc_hybrid_ms),
                                "http_sequential": over_http.report()}
        loaded = await run_load(url, texts, concurrency=concurrency, requests=requests)
        report["http_concurrent"] = loaded.report()
        report["ours"] = {"hit_at_1": share(ours_hits), "answers_with_foreign_numbers": share(ours_foreign)}
        if breakdown:
            report["breakdown"] = bd.breakdown(sequential.server_timings)
            report["serialisation"] = bd.serialisation(trail)
            if conditions:
                report["hybrid"]["breakdown"] = bd.breakdown(over_http.server_timings)
        report["_questions"] = questions
        return report

    report = asyncio.run(main())
    questions: list[BenchQuestion] = report.pop("_questions")
    http_p50 = report["http_sequential"]["latency_ms"]["p50"]
    report["bus_overhead_ratio"] = (http_p50 - report["inprocess_ms"]["p50"]) / http_p50 if http_p50 else None
    report["http_to_inprocess_p50"] = http_p50 / report["inprocess_ms"]["p50"] if http_p50 else None
    if "hybrid" in report:
        hybrid_p50 = report["hybrid"]["http_sequential"]["latency_ms"]["p50"]
        report["hybrid"]["http_to_inprocess_p50"] = hybrid_p50 / report["hybrid"]["inprocess_ms"]["p50"]
    if naive:
        report["naive"] = _naive(pdf, truth, var_dir, questions)
    return report


def _naive(pdf: Path, truth: Path, var_dir: Path, questions: list[BenchQuestion]) -> dict[str, Any]:
    embedder = make_embedder(RetrievalSettings(var_dir=var_dir))
    naive = NaiveRag(pdf, embedder)
    sections = _section_texts(truth)
    hits, foreign = [], []
    with JobProgress("bench query: naive RAG", len(questions), unit="questions") as progress:
        for q in progress.track(questions):
            expected = sections.get((q.drug_id, q.section_key.value), "")
            answer = naive.answer(q.text)
            hits.append(contains_section(answer.window, expected))
            foreign.append(bool(foreign_numbers(answer.answer, expected)))
    return {"hit_at_1": share(hits), "answers_with_foreign_numbers": share(foreign), "windows": len(naive.windows)}
