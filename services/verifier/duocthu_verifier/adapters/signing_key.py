"""The verifier's signing key: read from its secret (``VERDICT_SIGNING_KEY_FILE``), never logged, never sent.

Implements :class:`duocthu_verifier.ports.VerdictSigner` over the shared seal
(``duocthu_runtime.seal``: the canonical bytes and Ed25519), so the gateway and
the audit check exactly what is signed here.
"""

from __future__ import annotations

from pathlib import Path

from duocthu_contracts.messages import TurnCompleted, TurnVerified
from duocthu_runtime import SealKeyError
from duocthu_runtime.seal import SigningKey, public_text, read_signing_key, seal_completion


class KeySigner:
    def __init__(self, key: SigningKey) -> None:
        self._key = key

    @classmethod
    def from_file(cls, path: Path | None) -> KeySigner:
        """The key in ``path``; the verifier does not start without one (it could seal nothing it verified)."""
        if path is None:
            raise SealKeyError("VERDICT_SIGNING_KEY_FILE is not set: the verifier needs its private key to seal "
                               "verdicts (generate a pair with `duocthu keys new`; docs/deployment.md)")
        return cls(read_signing_key(path))

    @classmethod
    def ephemeral(cls) -> KeySigner:
        """A fresh key for a pipeline run in one process (benchmarks, tests): nothing outside checks its seals."""
        return cls(SigningKey.generate())

    @property
    def key_id(self) -> str:
        return self._key.key_id

    @property
    def public(self) -> str:
        """The public key as configuration text (for a checker in the same process)."""
        return public_text(self._key.public)

    def seal(self, completed: TurnCompleted) -> TurnVerified:
        return seal_completion(completed, self._key)
