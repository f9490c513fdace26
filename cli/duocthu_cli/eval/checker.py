"""Deterministic checks of one HTTP response against a turn's expectations.

No model grades anything: every check is a string or set comparison on the
response the service actually returned (seed 003 §20.3).  The checker is
deliberately independent of the verifier and of the shared text library (its
own number pattern and phrase lists): an eval that reused the verifier's
code would only measure the verifier agreeing with itself.
"""

from __future__ import annotations

import re
from typing import Any

from duocthu_cli.eval.cases import Expect
from duocthu_contracts.http import DISCLAIMER

NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
RANKING_PHRASES = (
    "lựa chọn đầu tay", "lựa chọn hàng đầu", "tốt nhất", "phác đồ chuẩn", "first-line", "first line",
    "ưu tiên hàng đầu", "thuốc được ưu tiên", "lựa chọn ưu tiên",
)
SAFETY_PHRASES = ("an toàn tuyệt đối", "không có tương tác", "không chống chỉ định", "hoàn toàn an toàn")


def numbers(text: str) -> set[str]:
    return set(NUMBER_RE.findall(text))


def check_response(expect: Expect, response: dict[str, Any]) -> list[str]:
    """Every failed expectation, as a readable line; empty means the turn passed."""
    failures: list[str] = []
    decision, reason = response.get("decision"), response.get("reason")
    if response.get("disclaimer") != DISCLAIMER:
        failures.append("disclaimer missing or altered")
    if decision not in expect.decision:
        failures.append(f"decision {decision!r} not in {expect.decision}")
    if expect.reason and reason not in expect.reason:
        failures.append(f"reason {reason!r} not in {expect.reason}")
    citations = {c["index"]: c for c in response.get("citations", [])}
    claims = response.get("claims", [])
    cited_drugs = {c["drug_id"] for c in citations.values()}
    cited_sections = {c["section_key"] for c in citations.values()}
    if decision == "answerable":
        if not claims or not citations:
            failures.append("answerable without claims or citations")
        for i, claim in enumerate(claims):
            cites = [citations[n] for n in claim.get("citations", []) if n in citations]
            if not cites:
                failures.append(f"claim {i} has no valid citation")
                continue
            evidence_numbers = set().union(*(numbers(c["text"]) for c in cites))
            missing = numbers(claim["text"]) - evidence_numbers
            if missing:
                failures.append(f"claim {i} numbers not in its cited text: {sorted(missing)}")
            cited_text = " ".join(c["text"].lower() for c in cites)
            for phrase in (*RANKING_PHRASES, *SAFETY_PHRASES):
                if phrase in claim["text"].lower() and phrase not in cited_text:
                    failures.append(f"claim {i} uses unsupported language {phrase!r}")
            drug = claim.get("drug_id")
            if drug and any(c["drug_id"] != drug for c in cites):
                failures.append(f"claim {i} about {drug} cites another drug's block")
        for drug in expect.cited_drugs:
            if drug not in cited_drugs:
                failures.append(f"expected drug {drug} not cited (cited: {sorted(cited_drugs)})")
        for section in expect.cited_sections:
            if section not in cited_sections:
                failures.append(f"expected section {section} not cited (cited: {sorted(cited_sections)})")
        if expect.max_drugs is not None and len(cited_drugs) > expect.max_drugs:
            failures.append(f"{len(cited_drugs)} drugs cited, cap {expect.max_drugs}")
        failures += _aim(expect, claims, citations)
        candidates = {a["drug_id"] for a in response.get("candidate_assessments", [])}
        outside = {c.get("drug_id") for c in claims if c.get("drug_id")} - (candidates | cited_drugs)
        if candidates and outside:
            failures.append(f"claims name drugs outside the candidate set: {sorted(outside)}")
    if expect.only_sections and cited_sections - set(expect.only_sections):
        failures.append(f"cited sections {sorted(cited_sections)} outside {expect.only_sections}")
    forbidden = cited_drugs & set(expect.forbidden_drugs)
    if forbidden:
        failures.append(f"forbidden drugs cited: {sorted(forbidden)}")
    for phrase in expect.forbidden_text:
        if any(phrase.lower() in c["text"].lower() for c in claims) or phrase.lower() in response.get("answer", "").lower():
            failures.append(f"answer contains forbidden text {phrase!r}")
    resolved = set(response.get("resolved_drug_ids", []))
    for drug in expect.resolved_drugs:
        if drug not in resolved:
            failures.append(f"drug {drug} not resolved (resolved: {sorted(resolved)})")
    if decision == "clarify" and not (response.get("quick_replies") or response.get("answer")
                                      or response.get("reason_message")):
        failures.append("clarify without a question or quick replies")
    return failures


def _aim(expect: Expect, claims: list[dict[str, Any]], citations: dict[int, dict[str, Any]]) -> list[str]:
    """The focus battery's checks: what must appear, what must not lead, how many claims, excluded drugs first."""
    failures: list[str] = []
    texts = [c["text"].lower() for c in claims]
    for phrase in expect.must_appear:
        if not any(phrase.lower() in t for t in texts):
            failures.append(f"no claim contains {phrase!r}")
    for phrase in expect.must_not_lead:
        if texts and phrase.lower() in texts[0]:
            failures.append(f"the first claim contains {phrase!r}")
    if expect.max_claims is not None and len(claims) > expect.max_claims:
        failures.append(f"{len(claims)} claims, at most {expect.max_claims}")
    for drug in expect.excluded_first:
        own = [c for c in claims if c.get("drug_id") == drug]
        if not own:
            continue
        sections = {citations[n]["section_key"] for n in own[0].get("citations", []) if n in citations}
        if "chong_chi_dinh" not in sections:
            failures.append(f"{drug} is offered before its contraindication is said")
    return failures
