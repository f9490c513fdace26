"""Property: no draft containing a number absent from its cited blocks is ever accepted."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from duocthu_contracts.answer import AnswerPlan, Claim, Draft
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.messages import AnswerDraftedPayload
from duocthu_providers.llm.port import TurnBudget
from duocthu_runtime import utcnow
from duocthu_text.vietnamese import fold
from duocthu_verifier import EntailmentJudge
from duocthu_verifier.adapters.judge import Judge
from duocthu_verifier.application.verification import subject_of, verify
from duocthu_verifier.domain.numbers import numeric_tokens, ungrounded
from duocthu_verifier.domain.rendering import render, split_segments
from tests.fixtures.verifier import ScriptedProvider, make_evidence, sample_terms

EVIDENCE = [make_evidence("paracetamol", "lieu_luong_va_cach_dung"), make_evidence("metformin", "chong_chi_dinh")]
KNOWN = set(numeric_tokens(" ".join(e.text for e in EVIDENCE)))
SENTENCES = [p for e in EVIDENCE for p in e.text.split("\n")]

number = st.builds(
    lambda whole, sep, frac: whole + (sep + frac if sep else ""),
    st.from_regex(r"[0-9]{1,4}", fullmatch=True),
    st.sampled_from(["", ",", "."]),
    st.from_regex(r"[0-9]{1,3}", fullmatch=True),
).filter(lambda n: n not in KNOWN)


def always_entailed(n: int) -> str:
    return json.dumps({"claims": [{"index": i, "entailed": True} for i in range(1, n + 1)], "complete": True})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(number=number, sentence=st.sampled_from(SENTENCES), position=st.integers(0, 1_000),
       cite=st.sampled_from([[1], [2], [1, 2]]))
def test_a_number_absent_from_the_cited_blocks_is_never_accepted(number: str, sentence: str, position: int,
                                                                 cite: list[int]) -> None:
    words = sentence.split(" ")
    at = position % (len(words) + 1)
    text = " ".join([*words[:at], f"{number} mg", *words[at:]])
    claim = Claim(text=text, citations=cite)
    payload = AnswerDraftedPayload(
        query="q", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE), route=Route.A_SECTION, evidence=EVIDENCE,
        plan=AnswerPlan(), draft=Draft(claims=[claim], generated=True),
    )
    judge = Judge(ScriptedProvider(replies=[always_entailed(1)]))  # even a judge that accepts everything
    budget = TurnBudget(deadline=utcnow() + timedelta(seconds=30), calls_left=8)
    verdict = asyncio.run(verify(subject_of(payload, sample_terms()), payload.query, judge, budget))
    cited_text = "\n".join(EVIDENCE[i - 1].text for i in cite)
    if number not in set(numeric_tokens(cited_text)):
        assert not verdict.accepted


@given(st.lists(st.from_regex(r"[0-9]{1,3}(?:[.,][0-9]{1,3})?", fullmatch=True), min_size=1, max_size=5))
def test_ungrounded_is_exact_token_membership(tokens: list[str]) -> None:
    evidence = " ".join(tokens)
    assert ungrounded(evidence, evidence) == []
    for token in tokens:
        if "," in token:
            assert ungrounded(token.replace(",", "."), evidence) in ([], [token.replace(",", ".")])
            if token.replace(",", ".") not in tokens:
                assert ungrounded(token.replace(",", "."), evidence) == [token.replace(",", ".")]


@given(st.lists(st.tuples(st.text(alphabet="abc đêm ", min_size=1, max_size=20), st.lists(
    st.integers(1, 9), min_size=1, max_size=3)), min_size=1, max_size=5))
def test_rendering_round_trips_through_segments(claims: list[tuple[str, list[int]]]) -> None:
    built = [Claim(text=t, citations=c) for t, c in claims if t.strip()]
    segments = split_segments(render(built))
    assert [s.citations for s in segments] == [tuple(c.citations) for c in built]


# --- issue 17: quantities keep their unit, claims keep their population, whatever the judge says -------------

DOSE_BLOCKS = [make_evidence(d, "lieu_luong_va_cach_dung") for d in ("paracetamol", "ibuprofen", "cetirizin",
                                                                      "amoxicilin", "carbamazepin", "levothyroxin")]
UNITS = ("mg", "g", "mg/kg", "mg/kg/lần", "mg/kg/ngày", "mg/ngày", "g/ngày", "mg/lần", "g/lần", "microgam",
         "ml", "ml/phút", "giờ", "ngày", "tuần", "tháng", "tuổi", "lần", "lần/ngày", "viên", "°C", "%")
_QTY = re.compile(r"(?<![\w,.])(\d+(?:[.,]\d+)*) (" + "|".join(re.escape(u) for u in sorted(UNITS, key=len,
                                                                                             reverse=True))
                  + r")(?![\w/])")
QUANTIFIED = [(block, sentence, m.start(), m.end(), m.group(1))
              for block in DOSE_BLOCKS for paragraph in block.text.split("\n") for sentence in paragraph.split(". ")
              for m in _QTY.finditer(sentence)]
POPULATION_PHRASES = ("Trẻ em", "Trẻ sơ sinh", "Người lớn", "Người cao tuổi", "Phụ nữ có thai",
                      "Phụ nữ cho con bú", "Người suy thận", "Người suy gan", "Người cân nặng dưới 40 kg")


def _printed_anywhere(value: str, unit: str, text: str) -> bool:
    return bool(re.search(rf"(?<![\w,.]){re.escape(value)} ?{re.escape(unit)}(?![\w/])", text))


def _yes_verdict(claim: Claim, block: Evidence, judge: EntailmentJudge) -> bool:
    payload = AnswerDraftedPayload(
        query="q", frame=QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE), route=Route.A_SECTION, evidence=[block],
        plan=AnswerPlan(), draft=Draft(claims=[claim], generated=True))
    budget = TurnBudget(deadline=utcnow() + timedelta(seconds=30), calls_left=2)
    verdict = asyncio.run(verify(subject_of(payload, sample_terms()), payload.query, judge, budget))
    return verdict.accepted


#: Each example is one verification with a yes-judge at the HTTP boundary (a function-scoped server).
AGAINST_A_YES_JUDGE = settings(max_examples=120, deadline=None,
                               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@AGAINST_A_YES_JUDGE
@given(pick=st.sampled_from(QUANTIFIED), unit=st.sampled_from(UNITS))
def test_a_quantity_with_a_unit_never_printed_with_its_value_is_never_accepted(
        pick: tuple[Evidence, str, int, int, str], unit: str, lying_judge: EntailmentJudge) -> None:
    block, sentence, start, end, value = pick
    claim_text = f"{sentence[:start]}{value} {unit}{sentence[end:]}"
    assume(not _printed_anywhere(value, unit, block.text))
    assert not _yes_verdict(Claim(text=claim_text, citations=[1]), block, lying_judge)


@AGAINST_A_YES_JUDGE
@given(pick=st.sampled_from(QUANTIFIED), population=st.sampled_from(POPULATION_PHRASES))
def test_a_dose_given_to_a_population_its_block_never_names_is_never_accepted(
        pick: tuple[Evidence, str, int, int, str], population: str, lying_judge: EntailmentJudge) -> None:
    block, sentence, _, _, _ = pick
    words = [w for w in fold(population).split() if w not in {"nguoi", "duoi", "40", "kg"}]
    assume(not all(re.search(rf"\b{re.escape(w)}\b", fold(block.text)) for w in words))
    body = sentence.split(":", 1)[1].strip() if ":" in sentence[:90] else sentence
    assert not _yes_verdict(Claim(text=f"{population}: {body}", citations=[1]), block, lying_judge)


def test_a_verbatim_text_cut_inside_a_unit_or_a_number_is_not_verbatim(lying_judge: EntailmentJudge) -> None:
    """Found by the property above: ``… không quá 1,2 g`` cut from ``… không quá 1,2 g/ngày``."""
    block = make_evidence("ibuprofen", "lieu_luong_va_cach_dung")
    whole = "Người lớn và trẻ em từ 12 tuổi (giảm đau, hạ sốt): 200 – 400 mg/lần, cách nhau 4 – 6 giờ khi cần"
    assert whole in block.text
    assert _yes_verdict(Claim(text=whole, citations=[1]), block, lying_judge)
    for cut in (f"{whole}; tự điều trị không quá 1,2 g",     # per day dropped
                "Người lớn và trẻ em từ 12 tuổi (giảm đau, hạ sốt): 200 – 400 mg",  # per dose dropped
                "Trẻ em (viêm khớp tự phát thiếu niên): 30 – 40 mg/kg",  # per day dropped
                "Suy thận: Suy thận nhẹ đến vừa dùng liều thấp nhất, theo dõi chức năng thận; "
                "chống chỉ định khi Clcr dưới 3"):  # a number cut
        assert cut.replace(" ", "") in block.text.replace(" ", "")
        assert not _yes_verdict(Claim(text=cut, citations=[1]), block, lying_judge), cut
