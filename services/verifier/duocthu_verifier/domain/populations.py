"""Who a statement is about: the population words of the book, grouped into concepts.

A dose copied correctly but handed to another population is the error that
matters most after a wrong number.  A claim may only name a population the
passage it is bound to names — in the sentence itself or in the labels in
force over it (seed 000 rule 4: "gán liều của đối tượng này cho đối tượng
khác là không được nêu").  Words are matched as whole tokens, folded, so a
claim typed without diacritics is read the same way; a concept is any of its
surface forms ("có thai", "mang thai", "thai phụ").
"""

from __future__ import annotations

from duocthu_verifier.domain.phrases import Folded

#: Population concept -> the surface forms that name it in the book or in a paraphrase.
POPULATION_CONCEPTS: dict[str, tuple[str, ...]] = {
    "trẻ em": ("trẻ em", "trẻ nhỏ", "trẻ", "nhi khoa"),
    "trẻ sơ sinh": ("sơ sinh", "nhũ nhi"),
    "thiếu niên": ("thiếu niên", "vị thành niên"),
    "người lớn": ("người lớn", "người trưởng thành"),
    "người cao tuổi": ("cao tuổi", "người già", "lão khoa"),
    "phụ nữ": ("phụ nữ",),
    "mang thai": ("có thai", "mang thai", "thai kỳ", "thai phụ"),
    "cho con bú": ("cho con bú", "cho bú"),
    "suy thận": ("suy thận", "suy chức năng thận"),
    "suy gan": ("suy gan", "suy chức năng gan"),
    "cân nặng": ("cân nặng",),
    "tuổi": ("tuổi",),
}


def populations(text: str) -> frozenset[str]:
    """The population concepts ``text`` names."""
    folded = Folded.of(text)
    return frozenset(c for c, forms in POPULATION_CONCEPTS.items() if any(folded.mentions(f) for f in forms))


def foreign(claim: str, carrier: str) -> frozenset[str]:
    """Concepts the claim names that the carrier (passage + labels in force) does not."""
    return populations(claim) - populations(carrier)
