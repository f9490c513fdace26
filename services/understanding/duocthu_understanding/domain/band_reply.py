"""A reply that picks one of the bands we offered ("eGFR (ml/phút/1,73 m²) 30 – 44", or just "30 – 44").

When generation asks for the value a released table is keyed on, its quick
replies are the table's bands as printed, header then key cell.  A reply that
is one of them is that band: it selects that row, header and key cell kept as
printed, and no number in it is read as the patient's value (30 – 44 is not an
eGFR of 30, nor of 44).  Only the replies the last turn offered are bands, so no
question is ever mistaken for one.
"""

from __future__ import annotations

import re

from duocthu_contracts.frame import PrintedBand, QueryFrame
from duocthu_text.vietnamese import fold

#: A band reply: the key header, which prints its unit in parentheses ("eGFR (ml/phút/1,73 m²)", "Cân nặng (kg)"),
#: then the row's key cell as printed ("30 – 44", "< 30", "trên 20", "Thẩm tách máu ngắt quãng").
_BAND_REPLY = re.compile(r"^(?P<header>[^()]*\S\s*\([^()]*\))\s+(?P<band>\S.*)$")


def split(reply: str) -> PrintedBand | None:
    """A quick reply that prints a table band: its header and key cell, else None ("Người lớn")."""
    m = _BAND_REPLY.match(reply.strip())
    if m is None:
        return None
    return PrintedBand(header=m["header"], band=m["band"])


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", fold(text).replace("—", "-").replace("–", "-")).rstrip(".?!")


def chosen(text: str, last: QueryFrame | None) -> PrintedBand | None:
    """The band ``text`` picks among the last turn's quick replies (whole reply, or its key cell alone)."""
    if last is None or not last.needs_clarify:
        return None
    typed = _norm(text)
    bands = [(reply, band) for reply in last.quick_replies if (band := split(reply)) is not None]
    whole = [band for reply, band in bands if _norm(reply) == typed]
    if whole:
        return whole[0]
    keyed = [band for _, band in bands if _norm(band.band) == typed]
    return keyed[0] if len(keyed) == 1 else None
