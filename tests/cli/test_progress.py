"""The shared progress display: silent while working off a terminal, one summary line either way."""

from __future__ import annotations

import io

import pytest

from duocthu_runtime.progress import JobProgress


def test_off_a_terminal_only_the_summary_line_is_written() -> None:
    stream = io.StringIO()
    with JobProgress("eval answers", 3, unit="cases", stream=stream) as progress:
        done = list(progress.track(["a", "b", "c"]))
        assert stream.getvalue() == ""  # nothing while it works (CI logs, pipes)
    assert done == ["a", "b", "c"]
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("eval answers: 3/3 cases in ")


def test_a_failed_job_still_reports_how_far_it_got() -> None:
    stream = io.StringIO()
    with pytest.raises(RuntimeError), JobProgress("ingest", 10, unit="pages", stream=stream) as progress:
        progress.update(4)
        raise RuntimeError("gate failed")
    assert stream.getvalue().startswith("ingest: 4/10 pages in ")
    assert stream.getvalue().rstrip().endswith("(stopped)")


def test_in_a_terminal_the_bar_shows_counts_and_is_replaced_by_the_summary() -> None:
    stream = io.StringIO()
    with JobProgress("indexing", unit="chunks", stream=stream, live=True) as progress:
        assert progress.live
        progress.update(5, 20, what="embedding")
        progress.advance(3)
        assert progress.completed == 8 and progress.total == 20
    assert stream.getvalue().splitlines()[-1].startswith("indexing: 8/20 chunks in ")
