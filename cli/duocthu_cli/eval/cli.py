"""``duocthu eval ...`` commands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from duocthu_cli.eval.answers import run_battery, summarize
from duocthu_cli.eval.cases import focus_cases_path, load_cases
from duocthu_runtime import JobProgress

T = TypeVar("T")

app = typer.Typer(no_args_is_help=True, help="Evaluation batteries (deterministic checkers, no LLM grading).")

Url = Annotated[str, typer.Option(envvar="DUOCTHU_URL", help="gateway base URL")]


@app.command()
def answers(
    url: Url = "http://127.0.0.1:8080",
    cases_path: Annotated[Path | None, typer.Option("--cases", help="JSONL battery (default: the shipped one)")] = None,
    out: Annotated[Path, typer.Option("--out", help="JSON report")] = Path("var/eval-answers.json"),
    only: Annotated[str | None, typer.Option(help="run only case ids starting with this")] = None,
    battery: Annotated[str, typer.Option(help="golden, focus (issue 18: aimed answers) or all")] = "all",
) -> None:
    """Golden end-to-end battery (and the focus battery, reported separately) over HTTP, checked deterministically."""
    if battery not in ("golden", "focus", "all"):
        raise typer.BadParameter("golden, focus or all", param_hint="--battery")
    golden = load_cases(cases_path) if battery in ("golden", "all") else []
    focus = load_cases(focus_cases_path()) if battery in ("focus", "all") and cases_path is None else []
    if only:
        golden = [c for c in golden if c.id.startswith(only)]
        focus = [c for c in focus if c.id.startswith(only)]
    report = summarize(run_battery(url, golden), run_battery(url, focus) if focus else None)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    passed = True
    if golden:
        passed &= _echo(report, f"{report['passed']}/{report['cases']} cases passed "
                                f"(golden {report['golden']['passed']}/{report['golden']['cases']}, "
                                f"adversarial {report['adversarial']['passed']}/{report['adversarial']['cases']})")
    if "focus" in report:
        part = report["focus"]
        passed &= _echo(part, f"focus battery: {part['passed']}/{part['cases']} cases passed")
    typer.echo(f"report: {out}")
    raise typer.Exit(0 if passed else 1)


def _echo(report: dict[str, Any], headline: str) -> bool:
    typer.echo(headline)
    for category, counts in report["by_category"].items():
        typer.echo(f"  {category:<22} {counts['passed']}/{counts['cases']}")
    for failure in report["failures"]:
        for turn in failure["turns"]:
            typer.echo(f"  FAIL {failure['id']}: {turn['query']!r} -> {turn['decision']}/{turn['reason']}: "
                       + "; ".join(turn["failures"]))
    return bool(report["passed"] == report["cases"])


@app.command()
def verifier(
    out: Annotated[Path, typer.Option("--out", help="JSON report")] = Path("var/eval-verifier.json"),
) -> None:
    """Adversarial writer x lying/honest judge over the 42 sample monographs, the honest paraphrases, and forged
    turn ends from every NATS identity (a private secured NATS and a real gateway)."""
    from duocthu_cli.eval import forged
    from duocthu_cli.eval.verifier import run_verifier_eval, table

    report = run_verifier_eval()
    forgeries = forged.forged_completions()
    out.parent.mkdir(parents=True, exist_ok=True)
    document = {**report.as_dict(), "forged_completions": [row.__dict__ for row in forgeries]}
    out.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")
    for line in table(report):
        typer.echo(line)
    for failure in report.failures:
        typer.echo(f"  {failure}")
    typer.echo("")
    typer.echo("forged completions (a compromised identity ends a waiting turn as answerable / verify_pdf):")
    for line in forged.table(forgeries):
        typer.echo(line)
    typer.echo(f"report: {out}")
    accepted = sum(r.accepted_lying for r in report.families.values())
    shown = sum(row.shown for row in forgeries)
    raise typer.Exit(0 if accepted == 0 and shown == 0 and report.reached_judge >= 0.95 * report.paraphrases else 1)


@app.command()
def parse(
    pdf: Annotated[Path | None, typer.Option("--pdf", help="default: build the sample formulary into var/eval")] = None,
    truth: Annotated[Path | None, typer.Option("--truth", help="ground-truth JSON (default: next to the PDF)")] = None,
    synthetic: Annotated[int, typer.Option("--synthetic", help="also a synthetic book of N monographs (0: no)")] = 0,
    out: Annotated[Path, typer.Option("--out", help="JSON report")] = Path("var/eval-parse.json"),
    baseline: Annotated[bool, typer.Option(help="also score pymupdf4llm split on the same headings")] = True,
) -> None:
    """Ingest round trip: every section exact vs the typesetter's ground truth, side by side with pymupdf4llm."""
    books = _eval_books(out.parent / "eval", pdf, synthetic, given="given")
    reports: dict[str, object] = {}
    lines = _page_by_page("eval parse", books, lambda name, path, progress: _parse_book(
        name, path, truth, baseline, reports, progress=progress))
    for line in lines:
        typer.echo(line)
    out.write_text(json.dumps(reports, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    typer.echo(f"report: {out}")


def _page_by_page(label: str, books: list[tuple[str, Path]],
                  read: Callable[[str, Path, Callable[[int, int], None]], T]) -> list[T]:
    """``read`` each book (name, path, a (page, pages) callback) under one bar counting pages across them all:
    the sample takes seconds, a full-size book minutes."""
    import pymupdf

    pages = []
    for _, path in books:
        with pymupdf.open(path) as doc:
            pages.append(doc.page_count)
    done: list[T] = []
    with JobProgress(label, sum(pages), unit="pages") as progress:
        before = 0
        for (name, path), count in zip(books, pages, strict=True):
            def at(page: int, _of: int, name: str = name, before: int = before) -> None:
                progress.update(before + page, what=name)
            done.append(read(name, path, at))
            before += count
            progress.update(before, what=name)  # scoring after the last page is done too
    return done


def _eval_books(work: Path, pdf: Path | None, synthetic: int, *, given: str) -> list[tuple[str, Path]]:
    """The books an eval reads: ``pdf`` (named ``given``) or the sample built afresh, and a synthetic book of
    ``synthetic`` monographs (seed 1) when asked, typeset with a progress bar (a full-size one takes minutes)."""
    from duocthu_corpus.monograph import load_all
    from duocthu_corpus.typeset.book import build_book, build_sample, write_companions
    from duocthu_corpus.typeset.synth import synthetic_monographs

    work.mkdir(parents=True, exist_ok=True)
    books = [(given, pdf) if pdf is not None else ("sample", build_sample(work / "sample-formulary.pdf",
                                                                           load_all()).path)]
    if synthetic:
        with JobProgress("typesetting the synthetic book", synthetic, unit="monographs") as progress:
            book = build_book(work / "synthetic.pdf", synthetic_monographs(synthetic, seed=1), front_matter=True,
                              progress=progress.update)
            write_companions(book)
        books.append(("synthetic", book.path))
    return books


def _parse_book(name: str, path: Path, truth: Path | None, baseline: bool, reports: dict[str, object], *,
                progress: Callable[[int, int], None]) -> str:
    """Score one book's ingest round trip into ``reports`` (``progress`` gets pages read); the line that sums it up."""
    from duocthu_cli.eval.parse import parse_report

    truth_path = truth if (truth is not None and name == "given") else path.with_name(
        f"{path.stem}.ground-truth.json")
    sidecar = path.with_name(f"{path.stem}.transcriptions.json")
    report = parse_report(path, truth_path, transcriptions=sidecar if sidecar.is_file() else None,
                          baseline=baseline, progress=progress)
    reports[name] = report
    ours = report["duocthu"]
    assert isinstance(ours, dict)
    line = (f"{name}: {report['pages']} pages; duocthu sections exact {ours['sections']['exact']}/"
            f"{ours['sections']['sections']} ({ours['sections']['rate']:.4f}), monographs recall "
            f"{ours['monographs']['recall']:.3f}, released {ours['released']}, {ours['seconds']} s")
    base = report.get("pymupdf4llm")
    if isinstance(base, dict):
        line += f"; pymupdf4llm exact {base['sections']['exact']}/{base['sections']['sections']} " \
                f"({base['sections']['rate']:.4f})"
    return line


@app.command()
def tables(
    pdf: Annotated[Path | None, typer.Option("--pdf", help="default: build the sample formulary into var/eval")] = None,
    synthetic: Annotated[int, typer.Option("--synthetic", help="also a synthetic book of N monographs (0: no)")] = 0,
    out: Annotated[Path, typer.Option("--out", help="JSON report")] = Path("var/eval-tables.json"),
) -> None:
    """Tables found / agreed / released by the two extractors, cells vs ground truth, clearance questions."""
    from duocthu_cli.eval.tables import TableFigures, line, tables_report

    books = _eval_books(out.parent / "eval", pdf, synthetic, given="sample")
    def read(name: str, path: Path, progress: Callable[[int, int], None]) -> TableFigures:
        sidecar = path.with_name(f"{path.stem}.transcriptions.json")
        return tables_report(path, path.with_name(f"{path.stem}.ground-truth.json"),
                             sidecar if sidecar.is_file() else None, progress=progress)

    reports: dict[str, object] = {}
    wrong = 0
    for (name, _), figures in zip(books, _page_by_page("eval tables", books, read), strict=True):
        reports[name] = figures.as_dict()
        wrong += figures.wrong_cells_released
        typer.echo(line(name, figures))
        for reason in figures.quarantined[:10]:
            typer.echo(f"  quarantined {reason}")
    out.write_text(json.dumps(reports, ensure_ascii=False, indent=2), encoding="utf-8")
    typer.echo(f"report: {out}")
    raise typer.Exit(0 if wrong == 0 else 1)


@app.command()
def routing(
    pdf: Annotated[Path | None, typer.Option("--pdf", help="default: build the sample formulary into var/eval")] = None,
    var_dir: Annotated[Path, typer.Option("--var-dir", help="embedding cache location")] = Path("var"),
    out: Annotated[Path, typer.Option("--out", help="JSON report")] = Path("var/eval-routing.json"),
) -> None:
    """hit@1/3/5 of dense, sparse, hybrid search and the section router on generated and hand-written questions."""
    import asyncio

    from duocthu_cli.eval.routing import METHODS, evaluate, generated_questions, hand_written
    from duocthu_cli.stack.sample_index import build_sample_index
    from duocthu_corpus.monograph import load_all
    from duocthu_corpus.typeset.book import build_sample

    if pdf is None:
        work = out.parent / "eval"
        work.mkdir(parents=True, exist_ok=True)
        pdf = build_sample(work / "sample-formulary.pdf", load_all()).path

    async def main() -> dict[str, dict[str, dict[str, float]]]:
        built = await build_sample_index(pdf, var_dir)
        try:
            questions = generated_questions(built.result.catalog) + hand_written()
            return await evaluate(built, questions)
        finally:
            await built.close()

    report = asyncio.run(main())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    for kind in ("generated", "hand-written"):
        n = int(report["router"][kind]["n"])
        typer.echo(f"{kind} questions ({n}):   hit@1   hit@3   hit@5")
        for method in METHODS:
            r = report[method][kind]
            typer.echo(f"  {method:<8} {r['hit@1']:7.3f} {r['hit@3']:7.3f} {r['hit@5']:7.3f}")
    typer.echo(f"report: {out}")
