"""General-Vietnamese word frequencies, from the ``wordfreq`` package's Vietnamese list (no download).

The term check asks only one thing of it: is a word an everyday word of
Vietnamese?  The data ships inside the package; its version is recorded with
every check (``BACKGROUND``) so that an audit knows which list decided.
"""

from __future__ import annotations

import functools
from importlib.metadata import version

from wordfreq import zipf_frequency

BACKGROUND = f"wordfreq {version('wordfreq')} vi"


@functools.lru_cache(maxsize=65536)
def general_zipf(word: str) -> float:
    """Zipf frequency of ``word`` in general Vietnamese (0.0 for a word the list does not know)."""
    return float(zipf_frequency(word, "vi"))
