"""Which book ``duocthu up`` serves: ``sample`` (the illustrative formulary) or ``synthetic:N`` (N generated monographs).

The synthetic book is built with the same code path as ``duocthu corpus synth`` so
that the full-size run (``--corpus synthetic:684``) exercises exactly what the
scale benchmarks measure; it is rebuilt only when the corpus package changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from duocthu_cli.stack.sample_corpus import (
    Echo,
    SampleCorpusError,
    SamplePdf,
    build_pdf_if_stale,
    prepare_sample_pdf,
    transcriptions_next_to,
)
from duocthu_runtime import file_sha256


@dataclass(frozen=True)
class CorpusSource:
    """``kind`` is ``sample`` or ``synthetic``; ``monographs`` is N for ``synthetic:N``."""

    kind: str
    monographs: int = 0

    @property
    def name(self) -> str:
        return "sample" if self.kind == "sample" else f"synthetic{self.monographs}"


def parse_corpus_source(text: str) -> CorpusSource:
    """``sample`` or ``synthetic:N`` (N ≥ 1); anything else is refused with the accepted forms."""
    if text == "sample":
        return CorpusSource("sample")
    kind, _, count = text.partition(":")
    if kind == "synthetic" and count.isdigit() and int(count) >= 1:
        return CorpusSource("synthetic", int(count))
    raise SampleCorpusError(f"unknown corpus {text!r}: use 'sample' or 'synthetic:N' (e.g. synthetic:684)")


def prepare_synthetic_pdf(var_dir: Path, monographs: int, echo: Echo = print) -> SamplePdf:
    """Build ``var/synthetic-N.pdf`` with ``duocthu corpus synth`` unless it is up to date."""
    pdf = var_dir / f"synthetic-{monographs}.pdf"
    build_pdf_if_stale(pdf, f"the synthetic formulary PDF ({monographs} monographs)",
                       ["synth", "--monographs", str(monographs)], echo)
    return SamplePdf(pdf.resolve(), file_sha256(pdf), transcriptions_next_to(pdf), name=f"synthetic{monographs}")


def prepare_corpus_pdf(var_dir: Path, source: CorpusSource, echo: Echo = print) -> SamplePdf:
    """The PDF ``duocthu up`` ingests for this source."""
    if source.kind == "sample":
        return prepare_sample_pdf(var_dir, echo)
    return prepare_synthetic_pdf(var_dir, source.monographs, echo)
