"""``duocthu corpus build-pdf | synth``: the illustrative sample formulary and the full-size synthetic book."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(no_args_is_help=True, help="The sample formulary PDF (illustrative, not the Dược thư) and the "
                                             "synthetic full-size book.")


def _report(path: Path, pages: int, monographs: int, started: float) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    typer.echo(f"{path}: {pages} pages, {monographs} monographs, sha256 {digest[:16]}…, "
               f"{time.perf_counter() - started:.1f} s")
    typer.echo(f"  sidecar: {path.with_name(path.stem + '.transcriptions.json')}")
    typer.echo(f"  ground truth: {path.with_name(path.stem + '.ground-truth.json')}")


@app.command("build-pdf")
def build_pdf(out: Annotated[Path, typer.Option("--out", help="PDF to write")] = Path("var/sample-formulary.pdf"),
              ) -> None:
    """Typeset the sample monographs (corpus package YAML) deterministically, with sidecar and ground truth."""
    import pymupdf

    from duocthu_corpus.monograph import load_all
    from duocthu_corpus.typeset.book import build_sample

    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    monos = load_all()
    book = build_sample(out, monos)
    with pymupdf.open(book.path) as doc:
        _report(out, doc.page_count, len(monos), started)


@app.command("synth")
def synth(
    monographs: Annotated[int, typer.Option("--monographs", min=1, help="how many (the real book has 684)")] = 684,
    seed: Annotated[int, typer.Option("--seed")] = 1,
    out: Annotated[Path, typer.Option("--out")] = Path("var/synthetic-formulary.pdf"),
) -> None:
    """A clearly synthetic book at the real book's scale, for performance and scale tests only."""
    import pymupdf

    from duocthu_corpus.typeset.book import build_book, write_companions
    from duocthu_corpus.typeset.synth import synthetic_monographs
    from duocthu_corpus.typeset.writer import PUA_CHAR

    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    monos = synthetic_monographs(monographs, seed)
    book = build_book(out, monos, reversed_pages=tuple(range(5, 10_000, 97)), pua={PUA_CHAR: "ư"},
                      pua_drugs=[m.drug_id for m in monos[::50]], front_matter=True,
                      outlined=[(m.drug_id, "than_trong") for m in monos[::40]])
    write_companions(book)
    with pymupdf.open(book.path) as doc:
        _report(out, doc.page_count, len(monos), started)
