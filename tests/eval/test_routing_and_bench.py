"""The routing battery's size and the section router on it; benchmark statistics and baseline measures."""

from __future__ import annotations

import math

from duocthu_cli.bench.naive import contains_section, foreign_numbers, share
from duocthu_cli.bench.questions import route_a_questions
from duocthu_cli.bench.stats import percentile, summary_ms
from duocthu_cli.eval.routing import MAIN_SECTIONS, generated_questions, hand_written
from duocthu_understanding.domain.frame_builder import understand
from duocthu_understanding.domain.matcher import DrugMatcher
from tests.fixtures.understanding import sample_catalog


def test_battery_sizes_and_router_on_hand_written() -> None:
    catalog = sample_catalog()
    generated = generated_questions(catalog)
    written = hand_written()
    assert len(generated) >= 160 and len(written) >= 40
    assert {q.section_key for q in generated} == set(MAIN_SECTIONS)
    assert sum(q.text.isascii() for q in generated) >= len(generated) // 3  # typed without diacritics
    matcher = DrugMatcher(catalog)
    right = 0
    for q in written:
        frame = understand(q.text, catalog, matcher).frame
        right += [d.drug_id for d in frame.drugs][:1] == [q.drug_id] and frame.section_key is q.section_key
    assert right / len(written) >= 0.98, right


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 99)) == (50.0, 95.0, 99.0)
    assert math.isnan(percentile([], 50))
    assert summary_ms([3.0, 1.0, 2.0])["p50"] == 2.0


def test_baseline_measures() -> None:
    section = "Người lớn: 500 mg – 1 g/lần, tối đa 4 g/ngày.\nTrẻ em: 10 – 15 mg/kg/lần."
    assert foreign_numbers("uống 500 mg, tối đa 4 g", section) == []
    assert foreign_numbers("uống 650 mg", section) == ["650"]
    assert foreign_numbers("7,5 mg", "7.5 mg") == ["7,5"]
    assert contains_section("... Người lớn: 500 mg – 1 g/lần, tối đa 4 g/ngày. Tiếp ...", section)
    assert not contains_section("một đoạn khác hẳn", section)
    assert share([True, False, False, True]) == 0.5


def test_route_a_questions_only_for_present_sections() -> None:
    questions = route_a_questions([("x", "THUỐC X", {"chong_chi_dinh"})])
    assert [q.section_key.value for q in questions] == ["chong_chi_dinh"]
    assert questions[0].text == "Chống chỉ định của thuốc x?"
