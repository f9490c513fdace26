"""Verifier settings (environment variables)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from duocthu_runtime import RuntimeSettings


class VerifierSettings(RuntimeSettings):
    service_name: str = "verifier"
    verdict_signing_key_file: Path | None = Field(default=None, description=(
        "the verifier's Ed25519 private key (PKCS#8 PEM) that seals every turn end it writes; mounted from a "
        "secret, this service's only (`duocthu up` generates one into <var dir>/keys). Required"))
