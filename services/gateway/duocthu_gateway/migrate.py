"""``python -m duocthu_gateway.migrate``: bring the store's schema to the latest revision (the k8s migration Job)."""

from __future__ import annotations

import asyncio

from duocthu_gateway.adapters.store import Store, database_url
from duocthu_gateway.settings import GatewaySettings


def main() -> None:
    settings = GatewaySettings()

    async def run() -> None:
        store = Store(database_url(settings.database_url, str(settings.var_dir)))
        try:
            await store.create()
        finally:
            await store.close()

    asyncio.run(run())
    print("store schema is at the latest revision")


if __name__ == "__main__":
    main()
