"""``duocthu bench query``: latency and throughput over HTTP, the bus's share, and the naive RAG baseline.

Everything runs on the sample formulary: the running stack answers over
HTTP; the same handlers answer in one process over an index built here from
the same PDF (the bus overhead is the difference); the naive baseline reads
the same PDF.  Figures are medians over repeated requests, never one timing.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from duocthu_cli.bench.inprocess import InProcessPipeline
from duocthu_cli.bench.load import run_load
from duocthu_cli.bench.naive import NaiveRag, contains_section, foreign_numbers, share
from duocthu_cli.bench.questions import BenchQuestion, route_a_questions
from duocthu_cli.bench.stats import summary_ms
from duocthu_cli.sample_index import SampleIndex, build_sample_index
from duocthu_contracts.messages import TurnCompleted
from duocthu_providers.embedding.factory import make_embedder
from duocthu_retrieval import RetrievalSettings
from duocthu_runtime.progress import JobProgress


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
                    questions_limit: int = 60, repeats: int = 3) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        pipeline, questions, index = await _inprocess(pdf, var_dir, questions_limit)
        texts = [q.text for q in questions]
        sections = _section_texts(truth)
        # in one process, sequential: `repeats` passes over the questions
        inproc_ms: list[float] = []
        ours_hits: list[bool] = []
        ours_foreign: list[bool] = []
        with JobProgress("bench query: in one process", repeats * len(questions), unit="turns") as progress:
            for rep in range(repeats):
                for q in progress.track(questions):
                    started = time.perf_counter()
                    done = await pipeline.ask(q.text)
                    inproc_ms.append((time.perf_counter() - started) * 1000)
                    if rep == 0:
                        ours_hits.append(_ours_hit(done, q))
                        expected = sections.get((q.drug_id, q.section_key.value), "")
                        numbers = " ".join(c.text for c in done.payload.claims)
                        ours_foreign.append(bool(foreign_numbers(numbers, expected)) if done.payload.claims else False)
        await index.close()
        # over HTTP and the bus: sequential (for the overhead) and concurrent (for throughput)
        sequential = await run_load(url, texts, concurrency=1, requests=len(texts) * repeats)
        loaded = await run_load(url, texts, concurrency=concurrency, requests=requests)
        return {"questions": len(questions), "inprocess_ms": summary_ms(inproc_ms),
                "http_sequential": sequential.report(), "http_concurrent": loaded.report(),
                "ours": {"hit_at_1": share(ours_hits), "answers_with_foreign_numbers": share(ours_foreign)},
                "_questions": questions}

    report = asyncio.run(main())
    questions: list[BenchQuestion] = report.pop("_questions")
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
    report["naive"] = {"hit_at_1": share(hits), "answers_with_foreign_numbers": share(foreign),
                       "windows": len(naive.windows)}
    http_p50 = report["http_sequential"]["latency_ms"]["p50"]
    report["bus_overhead_ratio"] = (http_p50 - report["inprocess_ms"]["p50"]) / http_p50 if http_p50 else None
    return report
