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

from duocthu_cli.stack import Stack
from tests.fixtures.corpus import SamplePdf
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def page(stack_factory: StackFactory, sample_pdf: SamplePdf, tmp_path: Path) -> Iterator[tuple[object, Stack, Path]]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/install-system-deps.sh installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    # crops are cut from a real typeset PDF (the seeded test index points at its early pages)
    stack = stack_factory(env={"SOURCE_PDF": str(sample_pdf.book.path)})
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.goto(stack.url + "/")
        yield tab, stack, tmp_path
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
