"""Which book ``duocthu up`` serves: ``sample`` (the illustrative formulary) or ``synthetic:N`` (N generated monographs).

The synthetic book is built with the same code path as ``duocthu corpus synth`` so
that the full-size run (``--corpus synthetic:684``) exercises exactly what the
scale benchmarks measure; it is rebuilt only when the corpus package changed.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from duocthu_cli.sample_corpus import Echo, SampleCorpusError, SamplePdf, corpus_fingerprint, prepare_sample_pdf
from duocthu_runtime.hashing import file_sha256


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


def _transcriptions_next_to(pdf: Path) -> Path | None:
    candidates = sorted(p for p in pdf.parent.glob(f"{pdf.stem}*") if "transcription" in p.name and p.is_file())
    return candidates[0] if candidates else None


def prepare_synthetic_pdf(var_dir: Path, monographs: int, echo: Echo = print) -> SamplePdf:
    """Build ``var/synthetic-N.pdf`` with ``duocthu corpus synth`` unless it is up to date."""
    var_dir.mkdir(parents=True, exist_ok=True)
    pdf = var_dir / f"synthetic-{monographs}.pdf"
    stamp = var_dir / f"{pdf.name}.source-sha256"
    fingerprint = corpus_fingerprint()
    if not (pdf.is_file() and stamp.is_file() and stamp.read_text(encoding="ascii").strip() == fingerprint):
        echo(f"building the synthetic formulary PDF ({monographs} monographs): {pdf}")
        command = [sys.executable, "-m", "duocthu_cli", "corpus", "synth", "--monographs", str(monographs),
                   "--out", str(pdf)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not pdf.is_file():
            detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise SampleCorpusError(f"cannot build the synthetic formulary PDF ({' '.join(command[3:])}): "
                                    + " | ".join(detail))
        stamp.write_text(fingerprint, encoding="ascii")
    return SamplePdf(pdf.resolve(), file_sha256(pdf), _transcriptions_next_to(pdf), name=f"synthetic{monographs}")


def prepare_corpus_pdf(var_dir: Path, source: CorpusSource, echo: Echo = print) -> SamplePdf:
    """The PDF ``duocthu up`` ingests for this source."""
    if source.kind == "sample":
        return prepare_sample_pdf(var_dir, echo)
    return prepare_synthetic_pdf(var_dir, source.monographs, echo)
