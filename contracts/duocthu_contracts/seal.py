"""The verifier's seal on a turn it ended: an Ed25519 signature over the verdict (DESIGN.md, "One turn").

Only the verifier holds the private key; the gateway, the operator's audit and
anyone else hold the public keys.  What the signature covers, byte for byte, is
``duocthu_runtime.seal.canonical`` (the turn id, lane, decision, reason, the
claims and everything else shown to a user, and each cited chunk id with the
sha256 of its text); ``scheme`` names that encoding, so a later encoding can
be introduced beside this one without invalidating the audit log.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from duocthu_contracts.base import Frozen

#: The one encoding of this version (``duocthu_runtime.seal.canonical``).
SEAL_SCHEME: Literal["ed25519/verdict-1"] = "ed25519/verdict-1"


class Seal(Frozen):
    scheme: Literal["ed25519/verdict-1"] = SEAL_SCHEME
    key_id: str = Field(min_length=1, max_length=64,
                        description="which public key verifies it: 'ed25519:' + 16 hex of sha256(raw public key)")
    signature: str = Field(min_length=1, max_length=128, description="base64 of the 64-byte Ed25519 signature")
