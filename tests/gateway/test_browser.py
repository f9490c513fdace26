"""The web page in real headless Chromium (Debian's, driven by Playwright) against the whole stack.

Ask, open a citation and its crop, a VERIFY_PDF crop, a quick reply, monograph mode, feedback — with
screenshots kept next to the test's temporary files.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from duocthu_cli.stack.supervisor import Stack
from tests.fixtures.corpus import SamplePdf
from tests.fixtures.index import IndexCorpus, seed_stack
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def page(stack_factory: StackFactory, sample_pdf: SamplePdf, tmp_path: Path) -> Iterator[tuple[object, Stack, Path]]:
    # crops are cut from a real typeset PDF (the seeded test index points at its early pages)
    stack = stack_factory(env={"SOURCE_PDF": str(sample_pdf.book.path)})
    yield from _browsing(stack, tmp_path)


def _browsing(stack: Stack, shots: Path) -> Iterator[tuple[object, Stack, Path]]:
    """Headless Chromium on the stack's page; what a fixture yields."""
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: `make test-env` installs Debian's chromium"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.goto(stack.url + "/")
        yield tab, stack, shots
        browser.close()


def test_ask_cite_crop_clarify_browse_feedback(page: tuple[object, Stack, Path]) -> None:
    from playwright.sync_api import Page, expect

    tab, stack, shots = page
    assert isinstance(tab, Page)
    expect(tab.locator("#disclaimer")).to_contain_text("bản mẫu minh họa")

    tab.fill("#query", "Chống chỉ định của metformin?")
    tab.click("#ask")
    expect(tab.locator(".block .claim").first).to_be_visible(timeout=30_000)
    tab.screenshot(path=str(shots / "answer.png"))
    tab.locator(".chip").first.click()
    expect(tab.locator("#evidence")).to_be_visible()
    expect(tab.locator("#evidence-title")).to_contain_text("METFORMIN")
    evidence = tab.locator("#evidence-text").inner_text()
    assert tab.locator(".block .claim").first.inner_text().split(" [")[0][:40] in evidence
    expect(tab.locator("#evidence-crops img").first).to_be_visible()
    tab.wait_for_function("document.querySelector('#evidence-crops img').complete")
    assert tab.evaluate("document.querySelector('#evidence-crops img').naturalWidth") > 50  # the PNG decoded
    tab.screenshot(path=str(shots / "evidence.png"))

    tab.fill("#query", "Liều gentamicin cho người lớn?")
    tab.click("#ask")
    expect(tab.locator(".verify-pdf")).to_contain_text("Cần đối chiếu PDF", timeout=30_000)
    expect(tab.locator(".verify-pdf img").first).to_be_visible()
    tab.screenshot(path=str(shots / "verify_pdf.png"))

    tab.fill("#query", "Liều paracetamol?")
    tab.click("#ask")
    reply = tab.locator(".quick-replies button").first
    expect(reply).to_be_visible(timeout=30_000)
    reply.click()
    expect(tab.locator(".block .claim").first).to_be_visible(timeout=30_000)
    expect(tab.locator("#history-list li")).to_have_count(4)

    tab.locator(".feedback button", has_text="Có").click()
    expect(tab.locator("#status")).to_contain_text("Đã ghi nhận")

    tab.click("#mode-monograph")
    tab.select_option("#drug-select", "warfarin")
    tab.wait_for_function("document.querySelector('#section-select').options.length > 1")
    tab.select_option("#section-select", "tuong_tac_thuoc")
    expect(tab.locator("#section-text")).to_contain_text("vitamin K", timeout=10_000)
    tab.screenshot(path=str(shots / "monograph.png"))
    for name in ("answer", "evidence", "verify_pdf", "monograph"):
        assert (shots / f"{name}.png").stat().st_size > 10_000
    assert httpx.get(f"{stack.url}/healthz", timeout=5).status_code == 200


@pytest.fixture
def table_page(stack_factory: StackFactory, table_corpus: IndexCorpus, sample_pdf: SamplePdf,
               tmp_path: Path) -> Iterator[tuple[object, Stack, Path]]:
    """The page against a stack whose index is the sample PDF's own ingest: released table rows and their crops."""
    stack = stack_factory(env={"SOURCE_PDF": str(sample_pdf.book.path)}, seed_index=False, start=False)
    stack.start(ready_timeout_s=120, bootstrap=seed_stack(table_corpus, release_id="rel-browser-tables"))
    yield from _browsing(stack, tmp_path)


@pytest.mark.browser
def test_a_cited_table_row_is_an_html_table_with_the_row_highlighted_and_the_crop_beside(
        table_page: tuple[object, Stack, Path]) -> None:
    """Issue 19: ask for a renal dose, click the eGFR band offered, see the verified row as a table beside its crop."""
    from playwright.sync_api import Page, expect

    tab, _, shots = table_page
    assert isinstance(tab, Page)
    tab.fill("#query", "Liều metformin cho người suy thận?")
    tab.click("#ask")
    band = tab.locator(".quick-replies button", has_text="30 – 44")
    expect(band).to_be_visible(timeout=30_000)
    expect(tab.locator("#result")).to_contain_text("eGFR (ml/phút/1,73 m²) của người bệnh ở mức nào?")
    band.click()

    table = tab.locator(".table-with-crop table.verified-table")
    expect(table).to_be_visible(timeout=30_000)
    expect(table.locator("caption")).to_contain_text("Bảng 1. Liều metformin theo mức lọc cầu thận")
    headers = table.locator("thead th").all_inner_texts()
    assert headers[0] == "eGFR (ml/phút/1,73 m²)" and any("Liều tối đa mỗi ngày" in h for h in headers), headers
    matched = table.locator("tbody tr.matched")
    expect(matched).to_have_count(1)
    cells = matched.locator("td").all_inner_texts()
    assert cells[0] == "30 – 44" and "1.000 mg" in cells, cells
    # a cell spanning two columns ("Chống chỉ định" under both doses) spans them, so "–" stays under its own column
    last = table.locator("tbody tr").last
    assert last.locator("td").all_inner_texts()[:2] == ["< 30", "Chống chỉ định"]
    assert last.locator("td").nth(1).get_attribute("colspan") == "2"
    assert tab.evaluate("[...document.querySelectorAll('.verified-table tbody tr')].every("
                        "r => [...r.cells].reduce((n, c) => n + c.colSpan, 0) === "
                        "document.querySelectorAll('.verified-table thead th').length)")
    # the highlight is drawn (not only a class name)
    assert tab.evaluate("getComputedStyle(document.querySelector('tr.matched td')).backgroundColor") \
        != tab.evaluate("getComputedStyle(document.querySelector('.verified-table caption')).backgroundColor")
    # the page crop sits beside the table, in the same box, to its right, and decodes
    crop = tab.locator(".table-with-crop img").first
    expect(crop).to_be_visible()
    tab.wait_for_function("document.querySelector('.table-with-crop img').complete")
    assert tab.evaluate("document.querySelector('.table-with-crop img').naturalWidth") > 50
    table_box, crop_box = table.bounding_box(), crop.bounding_box()
    assert table_box is not None and crop_box is not None
    assert crop_box["x"] >= table_box["x"] + table_box["width"] - 1
    assert crop_box["y"] < table_box["y"] + table_box["height"]  # side by side, not below
    tab.screenshot(path=str(shots / "verified_table.png"))
    assert (shots / "verified_table.png").stat().st_size > 10_000
