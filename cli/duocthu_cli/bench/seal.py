"""What sealing costs a turn: the verifier's seal (canonical bytes + Ed25519 sign) and the gateway's check.

The turn ends are real: the route-A questions run once through the pipeline in
one process (the services' own handlers over the sample index), and each
verifier end is then sealed and checked again ``repeats`` times, timed with
``time.perf_counter``; the figures are medians per turn.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from duocthu_cli.bench.inprocess import InProcessPipeline
from duocthu_cli.bench.questions import route_a_questions
from duocthu_cli.stack.sample_index import build_sample_index
from duocthu_contracts.messages import TurnCompleted, TurnVerified
from duocthu_runtime import encode
from duocthu_runtime.seal import Keyring, SealCheck, SigningKey, check_seal, seal_completion, sealed_bytes


async def _verifier_ends(pdf: Path, var_dir: Path, limit: int) -> list[TurnVerified]:
    built = await build_sample_index(pdf, var_dir)
    try:
        catalog = built.result.catalog
        drugs = [(e.drug_id, e.drug_name, {k.value for k in e.section_keys}) for e in catalog.entries]
        pipeline = InProcessPipeline(catalog, built.retriever)
        ends = [await pipeline.ask(q.text) for q in route_a_questions(drugs)[:limit]]
    finally:
        await built.close()
    return [end for end in ends if isinstance(end, TurnVerified)]


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def run_seal_bench(pdf: Path, var_dir: Path, *, repeats: int = 50, questions: int = 60) -> dict[str, Any]:
    verified = asyncio.run(_verifier_ends(pdf, var_dir, questions))
    key = SigningKey.generate()
    keyring = Keyring.of(key.public)
    plain = [TurnCompleted(**{name: getattr(v, name) for name in TurnCompleted.model_fields if name != "schema_"})
             for v in verified]  # the verifier's end as it is before the seal
    encode_s: list[float] = []
    sign_s: list[float] = []
    check_s: list[float] = []
    for _ in range(repeats):
        for end in plain:
            t0 = time.perf_counter()
            sealed_bytes(end)
            t1 = time.perf_counter()
            sealed = seal_completion(end, key)
            t2 = time.perf_counter()
            found = check_seal(sealed, keyring)
            t3 = time.perf_counter()
            assert found is SealCheck.VALID
            encode_s.append(t1 - t0)
            sign_s.append(t2 - t1)
            check_s.append(t3 - t2)
    return {
        "turns": len(plain), "repeats": repeats,
        "canonical_bytes_us": _median_us(encode_s),
        "seal_us": _median_us(sign_s),  # canonical bytes + Ed25519 sign + the sealed message built
        "check_us": _median_us(check_s),  # canonical bytes + Ed25519 verify
        "sealed_bytes_median": statistics.median(len(sealed_bytes(e)) for e in plain),
        "message_bytes_median": statistics.median(len(encode(seal_completion(e, key))) for e in plain),
    }
