"""``python -m duocthu_cli`` runs the ``duocthu`` command."""

from duocthu_cli.entry import main

main()
