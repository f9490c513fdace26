"""``duocthu eval ...`` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from duocthu_cli.eval.answers import run_battery, summarize
from duocthu_cli.eval.cases import load_cases

app = typer.Typer(no_args_is_help=True, help="Evaluation batteries (deterministic checkers, no LLM grading).")

Url = Annotated[str, typer.Option(envvar="DUOCTHU_URL", help="gateway base URL")]


@app.command()
def answers(
    url: Url = "http://127.0.0.1:8080",
    cases_path: Annotated[Path | None, typer.Option("--cases", help="JSONL battery (default: the shipped one)")] = None,
    out: Annotated[Path, typer.Option("--out", help="JSON report")] = Path("var/eval-answers.json"),
    only: Annotated[str | None, typer.Option(help="run only case ids starting with this")] = None,
) -> None:
    """Golden end-to-end battery over HTTP against a running stack, checked deterministically."""
    cases = load_cases(cases_path)
    if only:
        cases = [c for c in cases if c.id.startswith(only)]
    results = run_battery(url, cases)
    report = summarize(results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    typer.echo(f"{report['passed']}/{report['cases']} cases passed "
               f"(golden {report['golden']['passed']}/{report['golden']['cases']}, "
               f"adversarial {report['adversarial']['passed']}/{report['adversarial']['cases']})")
    for category, counts in report["by_category"].items():
        typer.echo(f"  {category:<22} {counts['passed']}/{counts['cases']}")
    for failure in report["failures"]:
        for turn in failure["turns"]:
            typer.echo(f"  FAIL {failure['id']}: {turn['query']!r} -> {turn['decision']}/{turn['reason']}: "
                       + "; ".join(turn["failures"]))
    typer.echo(f"report: {out}")
    raise typer.Exit(0 if report["passed"] == report["cases"] else 1)
