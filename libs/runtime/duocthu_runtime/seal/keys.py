"""Ed25519 keys of the verdict seal: the verifier's signing key and the set of public keys a checker accepts.

Pure given the key material (the files are read by :mod:`.files`).  A key's id
is derived from its public key (``ed25519:`` and 16 hex digits of the sha256
of the 32 raw bytes), so a seal names the key that made it and a checker
configured with several public keys (a rotation: the new key added before
the verifier switches to it, the old one kept while records it sealed are
audited) finds the right one without any further configuration.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from duocthu_contracts.seal import SEAL_SCHEME, Seal
from duocthu_runtime.errors import SealKeyError

RAW = serialization.Encoding.Raw
RAW_PUBLIC = serialization.PublicFormat.Raw


def key_id_of(public: Ed25519PublicKey) -> str:
    return "ed25519:" + hashlib.sha256(public.public_bytes(RAW, RAW_PUBLIC)).hexdigest()[:16]


def public_text(public: Ed25519PublicKey) -> str:
    """A public key as configuration text: base64 of its 32 raw bytes."""
    return base64.b64encode(public.public_bytes(RAW, RAW_PUBLIC)).decode("ascii")


@dataclass(frozen=True)
class SigningKey:
    """The verifier's private key (never anywhere but the verifier's secret) and its id."""

    private: Ed25519PrivateKey

    @classmethod
    def generate(cls) -> SigningKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_pem(cls, pem: bytes, *, where: str = "the signing key") -> SigningKey:
        try:
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as exc:
            raise SealKeyError(f"{where} is not an unencrypted PEM private key: {exc}") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise SealKeyError(f"{where} is a {type(key).__name__}, not an Ed25519 private key")
        return cls(key)

    def pem(self) -> bytes:
        return self.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption())

    @property
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()

    @property
    def key_id(self) -> str:
        return key_id_of(self.public)

    def sign(self, data: bytes) -> Seal:
        signature = base64.b64encode(self.private.sign(data)).decode("ascii")
        return Seal(scheme=SEAL_SCHEME, key_id=self.key_id, signature=signature)


class SealCheck(StrEnum):
    """What checking a seal found; anything but ``valid`` means the sealed content is not shown."""

    VALID = "valid"
    UNKNOWN_KEY = "unknown_key"  #: made by a key this checker is not configured with
    BAD_SIGNATURE = "bad_signature"  #: the content or the turn is not what the key signed
    MALFORMED = "malformed"  #: not a signature of this scheme at all


@dataclass(frozen=True)
class Keyring:
    """The public keys a checker accepts, by key id."""

    keys: Mapping[str, Ed25519PublicKey]

    @classmethod
    def of(cls, *publics: Ed25519PublicKey) -> Keyring:
        return cls({key_id_of(p): p for p in publics})

    @classmethod
    def parse(cls, text: str, *, where: str = "VERDICT_PUBLIC_KEYS") -> Keyring:
        """Public keys written as base64 of their raw 32 bytes, separated by commas, spaces or newlines."""
        publics: list[Ed25519PublicKey] = []
        for number, item in enumerate(text.replace(",", " ").split(), start=1):
            try:
                raw = base64.b64decode(item, validate=True)
                publics.append(Ed25519PublicKey.from_public_bytes(raw))
            except (binascii.Error, ValueError) as exc:
                raise SealKeyError(f"{where}: entry {number} ({item[:12]}…) is not the base64 of a 32-byte "
                                   f"Ed25519 public key") from exc
        return cls.of(*publics)

    def check(self, data: bytes, seal: Seal) -> SealCheck:
        if seal.scheme != SEAL_SCHEME:
            return SealCheck.MALFORMED
        public = self.keys.get(seal.key_id)
        if public is None:
            return SealCheck.UNKNOWN_KEY
        try:
            signature = base64.b64decode(seal.signature, validate=True)
        except (binascii.Error, ValueError):
            return SealCheck.MALFORMED
        if len(signature) != 64:
            return SealCheck.MALFORMED
        try:
            public.verify(signature, data)
        except InvalidSignature:
            return SealCheck.BAD_SIGNATURE
        return SealCheck.VALID
