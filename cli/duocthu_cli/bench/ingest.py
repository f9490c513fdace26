"""Ingest throughput and parse quality on a full-size book (issue 5, "Measure").

    .venv/bin/python scripts/bench_ingest.py --pdf var/synthetic-684.pdf --truth var/synthetic-684.truth.json
    .venv/bin/python scripts/bench_ingest.py --stand-in 684        # no corpus synth: a scaled test book

Prints, from ``--repeat`` runs each, the median wall time and pages/second of
extraction + segmentation + chunking (no embeddings), with and without the
residual-ink QA (rendering every page), the per-step split, the gate result,
and — with ``--truth`` — section round-trip and monograph recall/precision,
and with ``--baseline`` pymupdf4llm's section recovery on the same PDF split
on the same headings.  Figures only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def stand_in(path: Path, monographs: int) -> Path:
    """A scaled two-column test book (tests/ingest/minibook.py): monographs renamed to stay distinct."""
    from duocthu_corpus.monograph import Monograph
    from tests.ingest.minibook import build_book
    from tests.ingest.minibook import monographs as base

    seeds = base()
    monos: list[Monograph] = []
    for i in range(monographs):
        src = seeds[i % len(seeds)]
        title = f"{src.title} {i:03d}"
        data = src.model_dump(mode="json")
        data.update(title=title, drug_id=f"{src.drug_id}_{i:03d}", index_aliases=[])
        if "ten_thuong_mai" in data["sections"]:
            data["sections"]["ten_thuong_mai"] = [f"Biệt dược {i:03d}."]
        data["sections"]["ten_chung_quoc_te"] = [f"{src.title.capitalize()} {i:03d}."]
        monos.append(Monograph.model_validate(data))
    book = build_book(path, monos=monos, reversed_pages=tuple(range(3, 10_000, 97)))
    truth = [{"drug_id": e.drug_id, "title": e.title, "sections": e.sections, "printed_page": e.printed_page}
             for e in book.expected]
    path.with_suffix(".truth.json").write_text(json.dumps({"monographs": truth}, ensure_ascii=False), "utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdf", type=Path)
    parser.add_argument("--truth", type=Path, help="ground-truth JSON of the PDF")
    parser.add_argument("--transcriptions", type=Path)
    parser.add_argument("--stand-in", type=int, default=0, help="build a scaled test book with N monographs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", action="store_true", help="also run pymupdf4llm (slow on a full book)")
    args = parser.parse_args()

    from duocthu_cli.eval.parse import (
        compare_sections,
        load_ground_truth,
        monograph_scores,
        our_sections,
        pymupdf4llm_sections,
    )
    from duocthu_ingest import IngestConfig, IngestRequest, run_ingest

    pdf = args.pdf
    if pdf is None:
        if not args.stand_in:
            parser.error("give --pdf (e.g. the corpus synth output) or --stand-in N")
        pdf = stand_in(Path(tempfile.mkdtemp()) / f"stand-in-{args.stand_in}.pdf", args.stand_in)
        args.truth = args.truth or pdf.with_suffix(".truth.json")
    print(f"pdf: {pdf}")
    results = {}
    for ink in (False, True):
        times = []
        result = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = run_ingest(IngestRequest(pdf=pdf, transcriptions=args.transcriptions, residual_ink=ink))
            times.append(time.perf_counter() - t0)
        assert result is not None
        median = statistics.median(times)
        results[ink] = result
        label = "with residual-ink QA" if ink else "parse+chunk only   "
        print(f"{label}: {result.pages_processed} pages, {len(result.monographs)} monographs, "
              f"{len(result.chunks)} chunks — median {median:.2f} s over {args.repeat} runs "
              f"= {result.pages_processed / median:.1f} pages/s  (runs: {', '.join(f'{t:.2f}' for t in times)})")
        print(f"    steps of the last run: {json.dumps({k: round(v, 2) for k, v in result.timings.items()})}")
    final = results[True]
    print(f"gates: {'all passed' if final.released else 'FAILED ' + str([g.name for g in final.gates.failed()])}")
    print(f"chunks: {json.dumps(final.report['chunks'])}")
    if args.truth:
        truth = load_ground_truth(args.truth)
        ours = compare_sections(our_sections(final), truth)
        print(f"duocthu sections exact: {ours.exact}/{ours.total} = {ours.rate:.4f}; "
              f"monographs: {json.dumps(monograph_scores(final, truth))[:300]}")
        if args.baseline:
            found, seconds = pymupdf4llm_sections(pdf, truth, IngestConfig())
            base = compare_sections(found, truth)
            print(f"pymupdf4llm sections exact: {base.exact}/{base.total} = {base.rate:.4f} ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
