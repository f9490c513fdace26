"""Monograph mode and crops over HTTP against the stack (retrieval answers over NATS request/reply)."""

from __future__ import annotations

import httpx
import pymupdf
import pytest

from tests.fixtures.corpus import SamplePdf
from tests.fixtures.stack import StackFactory

pytestmark = pytest.mark.e2e


def test_browse_sections_text_and_crops(stack_factory: StackFactory, sample_pdf: SamplePdf) -> None:
    stack = stack_factory(env={"SOURCE_PDF": str(sample_pdf.book.path)}, ready_path="/healthz")
    url = stack.url
    drugs = httpx.get(f"{url}/v1/rag/drugs", timeout=10).json()["drugs"]
    assert {"metformin", "warfarin", "gentamicin"} <= {d["drug_id"] for d in drugs}
    sections = httpx.get(f"{url}/v1/rag/sections", params={"drug_id": "gentamicin"}, timeout=10).json()
    dose = next(s for s in sections["sections"] if s["section_key"] == "lieu_luong_va_cach_dung")
    assert dose["has_quarantined_content"] and dose["part_count"] >= 2
    text = httpx.get(f"{url}/v1/rag/section-text", params={"drug_id": "warfarin", "section_key": "tuong_tac_thuoc"},
                     timeout=10).json()
    assert "thuốc kháng vitamin K" in text["text"] and text["parts"]
    missing = httpx.get(f"{url}/v1/rag/sections", params={"drug_id": "khong_co"}, timeout=10)
    assert missing.status_code == 404 and missing.json()["error"] == "not_found" and missing.json()["trace_id"]
    bad = httpx.get(f"{url}/v1/rag/sections", params={"drug_id": "DROP TABLE"}, timeout=10)
    assert bad.status_code == 422

    region = {"page": 3, "x0": 50, "y0": 80, "x1": 280, "y1": 300}
    first = httpx.get(f"{url}/v1/rag/crop", params=region, timeout=10)
    second = httpx.get(f"{url}/v1/rag/crop", params=region, timeout=10)
    assert first.headers["content-type"] == "image/png" and first.headers["x-crop-cache"] == "miss"
    assert second.headers["x-crop-cache"] == "hit" and second.content == first.content
    pix = pymupdf.Pixmap(first.content)
    assert pix.width > 400 and pix.height > 400
    inverted = httpx.get(f"{url}/v1/rag/crop", params={**region, "x1": 10}, timeout=10)
    assert inverted.status_code == 422 and inverted.json()["error"] == "bad_region"
    off_book = httpx.get(f"{url}/v1/rag/crop", params={**region, "page": 10_000}, timeout=10)
    assert off_book.status_code == 422
    disabled = httpx.post(f"{url}/v1/admin/ingest", json={"pdf_uri": "x.pdf"},
                          headers={"Authorization": "Bearer anything"}, timeout=10)
    assert disabled.status_code == 403 and "ADMIN_TOKEN" in disabled.json()["detail"]
    page = httpx.get(f"{url}/", timeout=10)
    assert page.status_code == 200 and "duocthu" in page.text and "/static/app.js" in page.text
    assert httpx.get(f"{url}/static/app.js", timeout=10).status_code == 200
    assert httpx.get(f"{url}/static/..%2Fapp.py", timeout=10).status_code == 404
