"""The verifier's seal on a turn's end: Ed25519 over one canonical encoding (DESIGN.md, "One turn").

The verifier seals every turn end it writes (:func:`seal_completion`: a
``TurnCompleted`` becomes the ``TurnVerified`` it publishes on its own
subject); the gateway shows an answer only when :func:`check_seal` finds the
seal valid under a configured public key; ``duocthu audit reverify`` checks
every stored seal, so the audit log is tamper-evident.
"""

from __future__ import annotations

from duocthu_contracts.messages import TurnCompleted, TurnVerified, TurnVerifiedPayload
from duocthu_runtime.seal.canonical import sealed_bytes, text_sha256, verdict_view
from duocthu_runtime.seal.files import (
    DevKeys,
    VerdictKeySettings,
    dev_public_keys,
    ensure_dev_keys,
    read_signing_key,
)
from duocthu_runtime.seal.keys import Keyring, SealCheck, SigningKey, key_id_of, public_text

__all__ = [
    "DevKeys",
    "Keyring",
    "SealCheck",
    "SigningKey",
    "VerdictKeySettings",
    "check_seal",
    "dev_public_keys",
    "ensure_dev_keys",
    "key_id_of",
    "public_text",
    "read_signing_key",
    "seal_completion",
    "sealed_bytes",
    "text_sha256",
    "verdict_view",
]


def seal_completion(completed: TurnCompleted, key: SigningKey) -> TurnVerified:
    """``completed`` as the verifier publishes it: the same envelope and payload, sealed, on its own subject (a
    turn end sealed already is sealed anew)."""
    seal = key.sign(sealed_bytes(completed))
    envelope = {name: getattr(completed, name) for name in TurnCompleted.model_fields
                if name not in ("schema_", "payload")}
    fields = {name: value for name, value in completed.payload if name != "seal"}
    return TurnVerified(**envelope, payload=TurnVerifiedPayload(**fields, seal=seal))


def check_seal(verified: TurnVerified, keyring: Keyring) -> SealCheck:
    """Whether ``verified`` carries a valid seal, by a key of ``keyring``, over exactly what it shows."""
    return keyring.check(sealed_bytes(verified), verified.payload.seal)
