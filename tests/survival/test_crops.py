"""Crop regions come from the client: validated and clamped to the page (4xx otherwise), cached by the
normalised rectangle, and the cache bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_gateway.adapters.crops import CropRenderer
from duocthu_gateway.errors import CropError
from tests.fixtures.corpus import SamplePdf


def test_bad_regions_are_refused_and_the_cache_is_keyed_normalised_and_bounded(
        sample_pdf: SamplePdf, tmp_path: Path) -> None:
    crops = CropRenderer(sample_pdf.book.path, tmp_path / "crops", max_files=3)
    for bad in [(1e12, 1e12, 2e12, 2e12), (-5e3, -5e3, -4e3, -4e3), (700, 900, 800, 1000),
                (float("nan"), 0, 10, 10), (0, 0, float("inf"), 10), (10, 10, 10, 20), (50, 50, 40, 60)]:
        with pytest.raises(CropError):
            crops.render(3, bad)
    with pytest.raises(CropError, match="not in the PDF"):
        crops.render(10_000, (50, 80, 280, 300))
    # huge but overlapping: clamped to the page, not an error
    whole, _ = crops.render(3, (-1e9, -1e9, 1e9, 1e9))
    assert whole.startswith(b"\x89PNG")
    _, first = crops.render(3, (50, 80, 280, 300))
    _, again = crops.render(3, (50.2, 80.3, 279.9, 299.8))  # the same rectangle once normalised
    assert (first, again) == (False, True)
    for shift in range(6):
        crops.render(3, (50 + 10 * shift, 80, 280, 300))
    assert len(list((tmp_path / "crops").glob("*.png"))) <= 3
    assert not list((tmp_path / "crops").glob("*.tmp"))
