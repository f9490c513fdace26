"""Pure Vietnamese text analysis: one implementation for every stage that matches or indexes text.

The index and the query side must tokenise identically (a sparse vector
built with one tokenizer and queried with another silently matches
nothing), so folding, syllables and sparse terms live here once.  Nothing
in this package does I/O.
"""

from duocthu_text.numbers import decimal, numeric_tokens
from duocthu_text.reassembly import longest_overlap, reassemble
from duocthu_text.sparse import SparseEncoder, is_folded, term_id
from duocthu_text.vietnamese import (
    casefold_keep_marks,
    condition_coverage,
    fold,
    has_diacritics,
    lexical_coverage,
    nfc,
    normalize_whitespace,
    syllables,
)

__all__ = [
    "SparseEncoder",
    "casefold_keep_marks",
    "condition_coverage",
    "decimal",
    "fold",
    "has_diacritics",
    "is_folded",
    "lexical_coverage",
    "longest_overlap",
    "nfc",
    "normalize_whitespace",
    "numeric_tokens",
    "reassemble",
    "syllables",
    "term_id",
]
