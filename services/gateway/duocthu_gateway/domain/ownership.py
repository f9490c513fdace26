"""Who owns a conversation: the client whose token created it (issue 21, "Ownership").

A conversation or turn id alone must not open a conversation's history nor
accept feedback on its turns, since ids travel in URLs, logs and screenshots.
Each client holds an unguessable token (an HttpOnly cookie for the web page,
``X-Client-Token`` for API clients); only its SHA-256 is stored with each
turn, so a leaked database does not hand out working tokens.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Collection

COOKIE = "duocthu_client"
HEADER = "X-Client-Token"
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{32,128}$")

#: Plain Vietnamese refusals (user-facing text).
NOT_OWNER = "Cuộc hội thoại này thuộc về một người dùng khác; bạn không thể xem hay góp ý cho nó."
NO_TOKEN = "Thiếu mã định danh người dùng (cookie hoặc header X-Client-Token); hãy hỏi một câu trước."


def new_token() -> str:
    """A fresh client token (256 random bits)."""
    return secrets.token_urlsafe(32)


def valid_token(token: str | None) -> str | None:
    """``token`` if it is well formed, else ``None`` (a malformed token is treated as no token)."""
    return token if token is not None and TOKEN_RE.match(token) else None


def client_key(token: str) -> str:
    """What is stored of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def owns(stored_keys: Collection[str | None], key: str) -> bool:
    """Whether the client ``key`` may use a conversation whose turns carry ``stored_keys``: a conversation
    nobody has written yet is free; otherwise every turn must be this client's (a turn written before
    ownership existed belongs to nobody)."""
    return all(stored == key for stored in stored_keys)
