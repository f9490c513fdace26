"""The ``duocthu`` executable: ``duocthu ask`` runs straight away; every other command loads the full command line."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["ask"]:
        from duocthu_cli.ask import main as ask

        sys.exit(ask(sys.argv[2:]))
    from duocthu_cli.main import app

    app()
