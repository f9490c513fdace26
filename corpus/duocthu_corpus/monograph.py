"""The sample monograph source format (YAML) and its validation.

The YAML files under ``data/monographs/`` are the source of truth for the
illustrative sample formulary.  Everything else (the typeset PDF, the ground
truth JSON, test expectations) is derived from them, so this model is strict:
a file that does not validate never reaches the typesetter.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from duocthu_contracts.sections import SECTION_ORDER, SectionKey

_SLUG_RE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")


class MonographFormatError(ValueError):
    """A monograph YAML file does not follow the sample format."""


def slugify(title: str) -> str:
    """ASCII slug of a monograph title, the ``drug_id`` rule of DESIGN.md.

    ``đ`` has no Unicode decomposition, so it is mapped by hand before the
    combining marks are stripped.
    """
    text = unicodedata.normalize("NFD", title.replace("đ", "d").replace("Đ", "D"))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn").lower()
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


class Cell(BaseModel):
    """One table cell; ``colspan``/``rowspan`` express merged headers."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    text: str
    colspan: int = Field(default=1, ge=1)
    rowspan: int = Field(default=1, ge=1)


def _as_cell(value: object) -> object:
    return {"text": value} if isinstance(value, str) else value


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    caption: str
    header: list[list[Cell]]
    rows: list[list[Cell]]

    @field_validator("header", "rows", mode="before")
    @classmethod
    def _cells(cls, value: object) -> object:
        if isinstance(value, list):
            return [[_as_cell(c) for c in row] if isinstance(row, list) else row for row in value]
        return value

    @model_validator(mode="after")
    def _rectangular(self) -> Table:
        width = sum(c.colspan for c in self.rows[0]) if self.rows else 0
        if width < 2:
            raise ValueError(f"table {self.caption!r} needs at least two columns")
        for row in self.rows:
            if sum(c.colspan for c in row) != width:
                raise ValueError(f"table {self.caption!r}: body rows must all span {width} columns")
        return self


class Formula(BaseModel):
    """A two-dimensional formula ``lead  numerator / denominator``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    lead: str
    numerator: str
    denominator: str
    note: str = ""


class TableBlock(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    table: Table


class FormulaBlock(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    formula: Formula


Block = str | TableBlock | FormulaBlock


class Monograph(BaseModel):
    """One sample monograph.

    ``sections`` maps a section key to its blocks in reading order; a block is
    a prose paragraph (a string) or a table/formula.  Keys must follow the
    book's section order.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    drug_id: str
    title: str
    index_aliases: list[str] = Field(default_factory=list)
    sections: dict[SectionKey, list[Block]]
    kind: Literal["monograph"] = "monograph"

    @field_validator("sections", mode="before")
    @classmethod
    def _wrap_scalars(cls, value: object) -> object:
        if isinstance(value, dict):
            return {k: [v] if isinstance(v, str) else v for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Monograph:
        if not _SLUG_RE.match(self.drug_id):
            raise ValueError(f"drug_id {self.drug_id!r} is not an ASCII slug")
        if slugify(self.title) != self.drug_id:
            raise ValueError(f"drug_id {self.drug_id!r} is not the slug of title {self.title!r}")
        keys = list(self.sections)
        if keys != sorted(keys, key=SECTION_ORDER.index):
            raise ValueError(f"{self.drug_id}: sections are not in book order: {keys}")
        for key, blocks in self.sections.items():
            if not any(isinstance(b, str) and b.strip() for b in blocks):
                raise ValueError(f"{self.drug_id}.{key}: a section needs at least one prose paragraph")
            for b in blocks:
                if isinstance(b, str) and (b != b.strip() or "\n" in b or not b):
                    raise ValueError(f"{self.drug_id}.{key}: paragraphs are single trimmed lines: {b[:40]!r}")
        return self

    def prose(self, key: SectionKey) -> list[str]:
        return [b for b in self.sections.get(key, []) if isinstance(b, str)]


def load_monograph(path: Path) -> Monograph:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        mono = Monograph.model_validate(raw)
    except (yaml.YAMLError, ValueError) as exc:
        raise MonographFormatError(f"{path.name}: {exc}") from exc
    if path.stem != mono.drug_id:
        raise MonographFormatError(f"{path.name}: file name must be {mono.drug_id}.yaml")
    return mono


def monographs_dir() -> Path:
    return Path(__file__).parent / "data" / "monographs"


def load_all(directory: Path | None = None) -> list[Monograph]:
    """All sample monographs, sorted by title as the book sorts them."""
    directory = directory or monographs_dir()
    monos = [load_monograph(p) for p in sorted(directory.glob("*.yaml"))]
    return sorted(monos, key=lambda m: slugify(m.title))
