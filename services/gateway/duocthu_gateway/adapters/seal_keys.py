"""The verifier's public keys, from configuration (``VERDICT_PUBLIC_KEYS``): checks a turn end's seal.

Implements :class:`duocthu_gateway.ports.SealChecker` over the shared seal
(``duocthu_runtime.seal``), the same canonical bytes the verifier signs.
Several keys may be configured at once (a key rotation, docs/deployment.md).
"""

from __future__ import annotations

from duocthu_contracts.messages import TurnVerified
from duocthu_runtime import SealKeyError
from duocthu_runtime.seal import Keyring, SealCheck, check_seal


class ConfiguredKeys:
    def __init__(self, keyring: Keyring) -> None:
        if not keyring.keys:
            raise SealKeyError("VERDICT_PUBLIC_KEYS is empty: the gateway could check no verdict seal and would "
                               "show no answer (set the verifier's public key; docs/deployment.md)")
        self.keyring = keyring

    def problem(self, verified: TurnVerified) -> str | None:
        found = check_seal(verified, self.keyring)
        return None if found is SealCheck.VALID else found.value
