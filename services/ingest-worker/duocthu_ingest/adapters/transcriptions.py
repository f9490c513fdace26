"""Loading the verified transcription sidecar (vector-outline runs and PUA glyphs).

The real project kept a hand-verified transcription of every outlined run;
this file is that input.  Format (JSON)::

    {"runs": [{"page": 12, "bbox": [x0, y0, x1, y1], "text": "Chỉ định", "bold": true, "size": 9.5}],
     "pua": {"U+E001": "ễ"}}

or, where one private-use code point reads differently in different places,
``"pua": [{"page": 12, "bbox": [...], "char": "U+E001", "text": "ễ"}]``.

``page`` is the physical (0-based) page.  A malformed file is an error, never
silently ignored: without it outlined headings would vanish from the text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from duocthu_ingest.domain.repair import TranscribedGlyph, TranscribedRun, Transcriptions
from duocthu_ingest.errors import BadInput


def _char(key: str) -> str:
    if key.upper().startswith("U+"):
        return chr(int(key[2:], 16))
    if len(key) == 1:
        return key
    raise ValueError(f"PUA key {key!r} is neither a character nor U+XXXX")


def parse_transcriptions(data: Any) -> Transcriptions:
    runs: list[TranscribedRun] = []
    for item in data.get("runs", []):
        x0, y0, x1, y1 = (float(v) for v in item["bbox"])
        runs.append(TranscribedRun(page=int(item["page"]), bbox=(x0, y0, x1, y1), text=str(item["text"]),
                                   bold=bool(item.get("bold", True)), size=float(item.get("size", 10.0)),
                                   font=str(item.get("font", "transcription"))))
    raw_pua = data.get("pua") or {}
    pua: dict[str, str] = {}
    glyphs: list[TranscribedGlyph] = []
    if isinstance(raw_pua, dict):
        pua = {_char(k): str(v) for k, v in raw_pua.items()}
    else:  # per occurrence: [{"page", "bbox", "char" (or "codepoint"), "text"}]
        for item in raw_pua:
            x0, y0, x1, y1 = (float(v) for v in item["bbox"])
            glyphs.append(TranscribedGlyph(int(item["page"]), (x0, y0, x1, y1),
                                           _char(str(item.get("char") or item["codepoint"])), str(item["text"])))
    return Transcriptions(tuple(runs), pua, tuple(glyphs))


def load_transcriptions(path: Path) -> Transcriptions:
    try:
        return parse_transcriptions(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadInput(f"tệp phiên âm (transcription) không hợp lệ {path}: {exc}") from exc
