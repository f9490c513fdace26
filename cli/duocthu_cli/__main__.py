"""``python -m duocthu_cli`` runs the ``duocthu`` command."""

from duocthu_cli.main import app

app()
