"""Write the NATS permission table into the deploy configs (compose, k8s), from the one table.

The ``authorization`` block of ``deploy/compose/nats.conf`` and of the
``nats-config`` ConfigMap in ``deploy/k8s/base/nats.yaml`` is rendered by
:func:`duocthu_runtime.access.server_config.authorization_block` with
``$NATS_<USER>_PASSWORD`` references (the containers get them from secrets),
so the scale-out grants are the embedded server's, secrets aside.
``duocthu contracts export`` rewrites them; a test fails when they are stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from duocthu_runtime.access import authorization_block, env_reference

ROOT = Path(__file__).resolve().parents[3]
COMPOSE_CONF = ROOT / "deploy" / "compose" / "nats.conf"
K8S_NATS = ROOT / "deploy" / "k8s" / "base" / "nats.yaml"

MARKER = ("# Generated from duocthu_runtime.access.table by `duocthu contracts export`: edit the table, not this\n"
          "# block. Each service user may use only its own subjects, consumers, inbox and buckets; ops may do all.\n")


def with_generated_authorization(conf: str) -> str:
    """``conf`` with everything from the generated block (or a hand-written ``authorization``) on replaced."""
    for start in (MARKER, "authorization {"):
        if start in conf:
            conf = conf[: conf.index(start)]
            break
    return conf.rstrip("\n") + "\n\n" + MARKER + authorization_block(env_reference)


def _k8s_rendered(text: str) -> str:
    docs: list[Any] = list(yaml.safe_load_all(text))
    for doc in docs:
        if doc.get("kind") == "ConfigMap" and doc["metadata"]["name"] == "nats-config":
            doc["data"]["nats.conf"] = with_generated_authorization(doc["data"]["nats.conf"])
    return yaml.safe_dump_all(docs, sort_keys=False, width=120, allow_unicode=True)


def rendered() -> dict[Path, str]:
    return {
        COMPOSE_CONF: with_generated_authorization(COMPOSE_CONF.read_text(encoding="utf-8")),
        K8S_NATS: _k8s_rendered(K8S_NATS.read_text(encoding="utf-8")),
    }


def stale_files() -> list[Path]:
    return sorted(p for p, text in rendered().items() if p.read_text(encoding="utf-8") != text)


def write() -> list[Path]:
    current = rendered()
    for path, text in current.items():
        path.write_text(text, encoding="utf-8")
    return sorted(current)
