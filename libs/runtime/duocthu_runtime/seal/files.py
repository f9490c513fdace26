"""Reading verdict keys from files and the environment, and the development key pair of ``duocthu up``.

The private key is a PKCS#8 PEM file (``openssl genpkey -algorithm ed25519``
writes one too), mounted into the verifier only (``VERDICT_SIGNING_KEY_FILE``);
public keys are configuration (``VERDICT_PUBLIC_KEYS``, base64 of the 32 raw
bytes, several for a rotation).  ``duocthu up`` generates one pair into
``<var dir>/keys`` on first start and reuses it after, as it does the NATS
passwords: the private key file is 0600 and only the verifier's environment
names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from duocthu_runtime.devstack.private_files import write_private
from duocthu_runtime.errors import SealKeyError
from duocthu_runtime.seal.keys import Keyring, SigningKey, public_text

KEYS_DIR = "keys"
SIGNING_KEY_FILE = "verdict-signing-key.pem"
PUBLIC_KEYS_FILE = "verdict-public-keys.txt"


class VerdictKeySettings(BaseSettings):
    """The public keys a checker of verdict seals accepts (the gateway, the operator's audit)."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    verdict_public_keys: str = Field(default="", description=(
        "public keys whose verdict seals are accepted: base64 of each 32-byte Ed25519 public key, comma "
        "separated (a rotation lists the old and the new key); `duocthu up` sets it from <var dir>/keys"))

    def keyring(self) -> Keyring:
        return Keyring.parse(self.verdict_public_keys)


def read_signing_key(path: Path) -> SigningKey:
    try:
        pem = path.read_bytes()
    except OSError as exc:
        raise SealKeyError(f"cannot read the verdict signing key {path}: {exc.strerror or exc}") from exc
    return SigningKey.from_pem(pem, where=str(path))


@dataclass(frozen=True)
class DevKeys:
    """The key pair of a development stack: the private key's file, and the public key as configuration."""

    signing_key_file: Path
    public_keys: str


def ensure_dev_keys(var_dir: Path) -> DevKeys:
    """The pair under ``<var_dir>/keys``, generated when missing (the private key 0600)."""
    directory = var_dir / KEYS_DIR
    private = directory / SIGNING_KEY_FILE
    if private.exists():
        key = read_signing_key(private)
    else:
        key = SigningKey.generate()
        write_private(private, key.pem().decode("ascii"))
    public = public_text(key.public)
    published = directory / PUBLIC_KEYS_FILE
    if not published.exists() or published.read_text(encoding="utf-8").strip() != public:
        published.write_text(public + "\n", encoding="utf-8")
    return DevKeys(private, public)


def dev_public_keys(var_dir: Path) -> str | None:
    """The public key a stack under ``var_dir`` seals with, if ``duocthu up`` ever ran there."""
    try:
        return (var_dir / KEYS_DIR / PUBLIC_KEYS_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
