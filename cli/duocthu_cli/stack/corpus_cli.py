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
    from duocthu_runtime import JobProgress

    started = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    with JobProgress("corpus synth", monographs, unit="monographs") as progress:
        progress.update(0, what="writing monographs")
        monos = synthetic_monographs(monographs, seed)
        book = build_book(out, monos, reversed_pages=tuple(range(5, 10_000, 97)), pua={PUA_CHAR: "ư"},
                          pua_drugs=[m.drug_id for m in monos[::50]], front_matter=True,
                          outlined=[(m.drug_id, "than_trong") for m in monos[::40]],
                          progress=lambda done, of: progress.update(done, of, what="typesetting"))
        progress.update(len(monos), what="sidecar and ground truth")
        write_companions(book)
    with pymupdf.open(book.path) as doc:
        _report(out, doc.page_count, len(monos), started)


@app.command("sample-embeddings")
def sample_embeddings(
    var_dir: Annotated[Path, typer.Option("--var-dir", help="state directory (its embedding cache is reused)")] = Path("var"),
    check: Annotated[bool, typer.Option("--check", help="only report whether the shipped vectors cover the sample")] = False,
) -> None:
    """Write the sample's document vectors shipped with the command (what a first `make run` would embed)."""
    from duocthu_cli.stack import sample_embeddings as shipped
    from duocthu_cli.stack.sample_corpus import prepare_sample_pdf

    sample = prepare_sample_pdf(var_dir, echo=typer.echo)
    inputs = shipped.sample_inputs(sample.path, sample.transcriptions)
    if check:
        from duocthu_providers.embedding.factory import make_provider
        from duocthu_providers.embedding.settings import EmbeddingSettings

        model = make_provider(EmbeddingSettings(var_dir=var_dir)).identity.model_id
        missing = shipped.missing_inputs(inputs, model, shipped.shipped_lines())
        typer.echo(f"{len(inputs) - len(missing)}/{len(inputs)} sample inputs covered by {shipped.SHIPPED}")
        raise typer.Exit(1 if missing else 0)
    shipped.write_shipped(inputs, var_dir, echo=typer.echo)
