"""``duocthu eval verifier``: the adversarial writer and the honest paraphrases against two judges.

Each attack (``verifier_attacks``) and each hand-written honest paraphrase
(``data/verifier_paraphrases.yaml``) is verified over its real sample
evidence twice, through the production OpenAI-compatible provider, at two
local HTTP judges:

* a *lying* judge that rules every claim entailed and every answer complete
  — what the deterministic layer alone must withstand;
* an *honest* judge that refuses exactly the attacks and accepts the rest —
  an upper bound of a good model.

The table counts, per family, how many attacks were accepted or rejected
with each judge (and with which reasons), and how many paraphrases passed
the deterministic layer and reached the judge.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

from duocthu_cli.eval.verifier_attacks import FAMILIES, attacks
from duocthu_cli.eval.verifier_sample import sample_term_statistics, section_evidence
from duocthu_contracts.answer import AnswerPlan, Claim, Draft, Verdict
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_providers import TurnBudget
from duocthu_providers.llm.openai_compat import OpenAICompatibleProvider
from duocthu_runtime import JobProgress, utcnow
from duocthu_verifier import EntailmentJudge, judge_over, subject_of, term_context, verify

PARAPHRASES = Path(__file__).parent / "data" / "verifier_paraphrases.yaml"
_CLAIM_LINE = re.compile(r"^Nhận định (\d+): (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Paraphrase:
    drug_id: str
    section: str
    claim: Claim
    evidence: Evidence


def load_paraphrases(path: Path = PARAPHRASES) -> list[Paraphrase]:
    items = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [Paraphrase(i["drug"], i["section"], Claim(text=i["text"], citations=[1], label=i.get("label")),
                       section_evidence(i["drug"], i["section"])) for i in items]


class _JudgeServer(ThreadingHTTPServer):
    refuse: frozenset[str]
    calls: int


class _JudgeHandler(BaseHTTPRequestHandler):
    server: _JudgeServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.calls += 1
        prompt = body["messages"][-1]["content"]
        rulings = [{"index": int(n), "entailed": text.strip() not in self.server.refuse, "explanation": ""}
                   for n, text in _CLAIM_LINE.findall(prompt)]
        content = json.dumps({"claims": rulings, "complete": True, "missing_evidence": []}, ensure_ascii=False)
        reply = json.dumps({"id": "eval", "model": "eval-judge",
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
        data = reply.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def judge_server(refuse: frozenset[str]) -> Iterator[_JudgeServer]:
    """A local OpenAI-compatible judge on a free loopback port, refusing exactly the claims in ``refuse``."""
    server = _JudgeServer(("127.0.0.1", 0), _JudgeHandler)
    server.refuse, server.calls = refuse, 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def judge_at(server: _JudgeServer) -> EntailmentJudge:
    host, port = server.server_address[0], server.server_address[1]
    judge = judge_over(OpenAICompatibleProvider(base_url=f"http://{host!s}:{port}/v1", model="eval-judge",
                                                max_attempts=1))
    assert judge is not None
    return judge


async def _verdict(claim: Claim, evidence: Evidence, judge: EntailmentJudge) -> Verdict:
    payload = AnswerDraftedPayload(
        query="câu hỏi", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE), route=Route.A_SECTION,
        evidence=[evidence], plan=AnswerPlan(), draft=Draft(claims=[claim], generated=True))
    budget = TurnBudget(deadline=utcnow() + timedelta(seconds=30), calls_left=2)
    return await verify(subject_of(payload, term_context(sample_term_statistics())), payload.query, judge, budget)


@dataclass
class FamilyRow:
    built: int = 0
    accepted_lying: int = 0
    accepted_honest: int = 0
    expected_reason: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


@dataclass
class VerifierReport:
    families: dict[str, FamilyRow]
    paraphrases: int
    reached_judge: int
    accepted_honest: int
    failures: list[str]

    def as_dict(self) -> dict[str, object]:
        return {
            "families": {f: {"built": r.built, "accepted_lying": r.accepted_lying,
                             "accepted_honest": r.accepted_honest, "expected_reason": r.expected_reason,
                             "reasons": dict(r.reasons)} for f, r in self.families.items()},
            "paraphrases": {"count": self.paraphrases, "reached_judge": self.reached_judge,
                            "accepted_honest": self.accepted_honest},
            "failures": self.failures,
        }


async def _run() -> VerifierReport:
    built = attacks()
    paraphrases = load_paraphrases()
    rows = {family: FamilyRow() for family in FAMILIES}
    failures: list[str] = []
    refuse = frozenset(a.claim.text for a in built)
    with judge_server(frozenset()) as lying, judge_server(refuse) as honest, \
            JobProgress("eval verifier", len(built) + len(paraphrases), unit="claims") as progress:
        yes, good = judge_at(lying), judge_at(honest)
        for attack in progress.track(built):
            row = rows[attack.family]
            row.built += 1
            with_lying = await _verdict(attack.claim, attack.evidence, yes)
            with_honest = await _verdict(attack.claim, attack.evidence, good)
            row.accepted_lying += with_lying.accepted
            row.accepted_honest += with_honest.accepted
            row.reasons[with_lying.reason.value] += 1
            row.expected_reason += with_lying.reason is attack.expect
            if with_lying.accepted:
                failures.append(f"accepted {attack.family} {attack.drug_id}: {attack.claim.text[:100]}")
        reached = accepted = 0
        for item in progress.track(paraphrases):
            before = lying.calls
            verdict = await _verdict(item.claim, item.evidence, yes)
            if lying.calls > before and verdict.accepted:
                reached += 1
            else:
                failures.append(f"paraphrase stopped ({verdict.reason}): {item.claim.text[:100]}")
            accepted += (await _verdict(item.claim, item.evidence, good)).accepted
    return VerifierReport(rows, len(paraphrases), reached, accepted, failures)


def run_verifier_eval() -> VerifierReport:
    return asyncio.run(_run())


def table(report: VerifierReport) -> list[str]:
    lines = ["| attack family | built | accepted, lying judge | accepted, honest judge | with its own reason |"
             " reasons (lying judge) |", "|---|---:|---:|---:|---:|---|"]
    for family, row in report.families.items():
        reasons = ", ".join(f"{r} {n}" for r, n in row.reasons.most_common())
        lines.append(f"| {family} | {row.built} | {row.accepted_lying} | {row.accepted_honest} | "
                     f"{row.expected_reason}/{row.built} | {reasons} |")
    rate = report.reached_judge / report.paraphrases if report.paraphrases else 0.0
    lines.append("")
    lines.append(f"honest paraphrases: {report.reached_judge}/{report.paraphrases} passed the deterministic layer "
                 f"and reached the judge ({rate:.1%}); {report.accepted_honest}/{report.paraphrases} accepted "
                 "with the honest judge")
    return lines
