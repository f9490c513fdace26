"""What the ingest use cases need from the outside, as Protocols.

The pipeline never touches PyMuPDF: it reads pages through
:class:`SourcePages` (``adapters.pdf`` implements it over PyMuPDF) and every
file through :class:`PdfSource`.  Every failure to read an input leaves as
:class:`~duocthu_ingest.errors.BadInput` naming the problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from duocthu_ingest.domain.model import BBox, PageContent
from duocthu_ingest.domain.repair import Transcriptions
from duocthu_ingest.domain.tables import RawCell, Word


class SourcePages(Protocol):
    """The pages of one open PDF."""

    @property
    def page_count(self) -> int: ...

    @property
    def reversed_runs(self) -> int:
        """Glyph runs printed right-to-left and re-ordered by x so far (one of the book's hazards)."""
        ...

    def content(self, number: int) -> PageContent:
        """Spans (with fonts and boxes), drawings and image boxes of physical page ``number``."""
        ...

    def lines(self, number: int) -> list[str]:
        """Plain text lines of a page (cheap: finding part dividers outside a job's page range)."""
        ...

    def ink(self, number: int, dpi: int, masks: Sequence[BBox]) -> tuple[np.ndarray, float]:
        """A page's ink bitmap with every ``masks`` box painted out, and the pixels per point."""
        ...

    def words(self, number: int) -> list[Word]:
        """The page's words with their boxes (the ruled-grid table extractor places them in cells)."""
        ...

    def table_cells(self, number: int, clip: BBox) -> list[RawCell] | str:
        """The table inside ``clip`` read by the library's table finder (the first extractor), or why not."""
        ...

    def close(self) -> None: ...


class PdfSource(Protocol):
    """Where a job's files come from, and what is known about them."""

    def fetch(self, uri: str) -> Path:
        """A local path for a job's PDF or sidecar (a path, ``file://`` or ``http(s)://``)."""
        ...

    def open(self, path: Path) -> SourcePages:
        """The PDF's pages, after checking it is a readable, unencrypted, complete PDF."""
        ...

    def sha256(self, path: Path) -> str: ...

    def transcriptions(self, path: Path) -> Transcriptions:
        """The verified transcription sidecar (outlined runs, private-use glyphs)."""
        ...
