"""The shared progress display: silent while working off a terminal, one summary line either way."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from duocthu_runtime import JobProgress


def _plain(drawn: str) -> str:
    """The text a terminal keeps once the cursor moves and line erasures are applied."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)


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
    assert _plain(stream.getvalue()).splitlines()[-1].startswith("indexing: 8/20 chunks in ")


def test_a_forced_terminal_draws_the_counts_and_the_eta() -> None:
    stream = io.StringIO()
    with JobProgress("embedding", 40, unit="chunks", stream=stream, live=True) as progress:
        progress.update(17)
    drawn = stream.getvalue()
    assert "17/40" in drawn and "ETA" in drawn  # the bar as a terminal shows it
    assert _plain(drawn).splitlines()[-1].startswith("embedding: 17/40 chunks in ")  # the bar erased


def test_a_long_command_off_a_terminal_prints_its_summary_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from duocthu_cli.main import app

    result = CliRunner().invoke(app, ["bench", "ingest", "--monographs", "2", "--repeats", "2",
                                      "--work", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("bench ingest: 2/2 runs in ")  # no bar drawn into a pipe, one line when done
    assert "pages/s" in lines[1]


def test_a_long_command_in_a_terminal_draws_counts_and_eta(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    # TTY_COMPATIBLE=1 is rich's documented switch for "this output is a terminal"
    env = {**os.environ, "TTY_COMPATIBLE": "1"}
    done = subprocess.run([sys.executable, "-m", "duocthu_cli", "bench", "ingest", "--monographs", "2", "--repeats",
                           "3", "--work", str(tmp_path)], env=env, capture_output=True, text=True, check=False,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert "3/3" in done.stdout and "runs" in done.stdout and "ETA" in done.stdout  # the drawn bar
    assert _plain(done.stdout).splitlines()[-2].startswith("bench ingest: 3/3 runs in ")  # then the summary


def _in_a_terminal(*args: str) -> str:
    """What ``duocthu args`` prints to a terminal (rich's TTY_COMPATIBLE switch), after it succeeds."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "duocthu_cli", *args], env={**os.environ, "TTY_COMPATIBLE": "1"},
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_corpus_synth_counts_monographs_as_it_typesets(tmp_path: Path) -> None:
    drawn = _in_a_terminal("corpus", "synth", "--monographs", "4", "--out", str(tmp_path / "synth.pdf"))
    assert "typesetting" in drawn and "4/4" in drawn and "ETA" in drawn  # a bar per monograph, not per step
    assert any(line.startswith("corpus synth: 4/4 monographs in ") for line in _plain(drawn).splitlines())


def _small_book(tmp_path: Path) -> tuple[Path, int]:
    """A three-monograph synthetic book with its ground truth and sidecar; its page count."""
    import pymupdf

    from duocthu_corpus.typeset.book import build_book, write_companions
    from duocthu_corpus.typeset.synth import synthetic_monographs

    book = build_book(tmp_path / "small.pdf", synthetic_monographs(3, seed=1))
    write_companions(book)
    with pymupdf.open(book.path) as doc:
        return book.path, doc.page_count


@pytest.mark.parametrize("command", [["parse", "--no-baseline"], ["tables"]])
def test_eval_parse_and_tables_count_the_pages_they_read(tmp_path: Path, command: list[str]) -> None:
    pdf, pages = _small_book(tmp_path)
    drawn = _in_a_terminal("eval", *command, "--pdf", str(pdf), "--out", str(tmp_path / "report.json"))
    assert f"/{pages}" in drawn and "pages" in drawn and "ETA" in drawn
    label = f"eval {command[0]}"
    assert any(line.startswith(f"{label}: {pages}/{pages} pages in ") for line in _plain(drawn).splitlines())
