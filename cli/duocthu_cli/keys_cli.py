"""``duocthu keys new | public``: the verifier's verdict-seal key pair, for a deployment and for a rotation.

The private key goes into the verifier's secret only (``VERDICT_SIGNING_KEY_FILE``
names the mounted file); the public key is configuration for every checker
(``VERDICT_PUBLIC_KEYS`` of the gateway and of the operator's audit).  A
rotation (docs/deployment.md): make a new pair, add its public key to
``VERDICT_PUBLIC_KEYS`` beside the old one and roll the gateways, switch the
verifier's secret, and keep the old public key for as long as the audit log
holds turns it sealed.  ``duocthu up`` makes its own development pair.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from duocthu_runtime import SealKeyError
from duocthu_runtime.devstack import write_private
from duocthu_runtime.seal import SigningKey, public_text, read_signing_key

app = typer.Typer(no_args_is_help=True, help="The verifier's verdict-seal keys (Ed25519): make a pair, show a public key.")


@app.command("new")
def new(
    out: Annotated[Path, typer.Option("--out", help="private key file to write (PKCS#8 PEM, mode 0600)")],
    force: Annotated[bool, typer.Option("--force", help="overwrite an existing file")] = False,
) -> None:
    """Make a key pair: the private key into OUT, the public key (for VERDICT_PUBLIC_KEYS) printed."""
    if out.exists() and not force:
        typer.echo(f"error: {out} exists (a key in use is never overwritten by accident; --force to replace it)",
                   err=True)
        raise typer.Exit(2)
    key = SigningKey.generate()
    write_private(out, key.pem().decode("ascii"))
    typer.echo(f"private key: {out} (mount it into the verifier only: VERDICT_SIGNING_KEY_FILE)")
    typer.echo(f"key id:      {key.key_id}")
    typer.echo(f"VERDICT_PUBLIC_KEYS={public_text(key.public)}")


@app.command("public")
def public(key_file: Annotated[Path, typer.Argument(help="a private key file (PKCS#8 PEM)")]) -> None:
    """Print the public key (for VERDICT_PUBLIC_KEYS) and key id of a private key file."""
    try:
        key = read_signing_key(key_file)
    except SealKeyError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"key id: {key.key_id}")
    typer.echo(f"VERDICT_PUBLIC_KEYS={public_text(key.public)}")
