"""``duocthu eval tables`` on the sample formulary: every table released with 0 wrong cells, and every clearance
question answered through generation from the row whose band holds its value (issue 19's done-when)."""

from __future__ import annotations

from duocthu_cli.eval.tables import score
from duocthu_ingest import IngestResult
from tests.fixtures.corpus import SamplePdf


def test_sample_tables_release_without_a_wrong_cell_and_answer_from_their_row(
        sample_ingest: IngestResult, sample_pdf: SamplePdf) -> None:
    figures = score(sample_ingest, sample_pdf.truth())
    assert figures.truth_tables >= 7
    assert figures.found == figures.agreed == figures.released == figures.truth_tables, figures.quarantined
    assert figures.wrong_cells_released == 0, figures.wrong
    assert figures.cells_correct == figures.cells_compared > 0
    # one question per numeric renal band; before issue 19 none was answered from a row (the tables were crops)
    assert figures.questions >= 20
    assert figures.answerable_after == figures.row_selected == figures.questions
    assert figures.verify_pdf_after == 0
    assert figures.verify_pdf_before + figures.answerable_before == figures.questions
