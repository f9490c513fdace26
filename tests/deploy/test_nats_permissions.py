"""The scale-out NATS configs (compose, k8s) carry the runtime's permission table, and each service its identity.

The ``authorization`` block of both configs is generated from
:mod:`duocthu_runtime.access.table` (``duocthu contracts export``); here it
must be current, accepted by the real ``nats-server`` (config test mode), and
every service must connect as the user the table gives it, with the password
the server expects for that user.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from duocthu_cli.export import nats_config
from duocthu_runtime.access import IDENTITIES, env_reference, identity_of_service
from duocthu_runtime.devstack import find_binary

ROOT = Path(__file__).resolve().parents[2]
SERVICES = [e.service for e in IDENTITIES if e.service]


def test_the_generated_authorization_blocks_are_current() -> None:
    assert nats_config.stale_files() == [], "run `duocthu contracts export`"


def _k8s_conf() -> str:
    for doc in yaml.safe_load_all(nats_config.K8S_NATS.read_text(encoding="utf-8")):
        if doc["kind"] == "ConfigMap":
            conf: str = doc["data"]["nats.conf"]
            return conf
    raise AssertionError("no nats-config ConfigMap")


@pytest.mark.parametrize("where", ["compose", "k8s"])
def test_nats_server_accepts_the_config(where: str, tmp_path: Path) -> None:
    conf = tmp_path / "nats.conf"
    text = nats_config.COMPOSE_CONF.read_text(encoding="utf-8") if where == "compose" else _k8s_conf()
    conf.write_text(text, encoding="utf-8")
    env = dict(os.environ, POD_NAME="nats-0", **{env_reference(e.user)[1:]: "secret" for e in IDENTITIES})
    done = subprocess.run([find_binary(), "-t", "-c", str(conf)], env=env, capture_output=True, text=True,
                          timeout=30, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    for entry in IDENTITIES:
        assert f'user: "{entry.user}", password: {env_reference(entry.user)},' in text


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("service", SERVICES)
def test_compose_services_connect_as_their_table_identity(service: str) -> None:
    compose = _compose()
    user = identity_of_service(service).user
    env = compose["services"][service]["environment"]
    assert env["NATS_USER"] == user
    variable = env_reference(user)[1:]
    assert env["NATS_PASSWORD"].startswith("${" + variable)
    assert compose["services"]["nats"]["environment"][variable].startswith("${" + variable)


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


@pytest.mark.parametrize("service", SERVICES)
def test_k8s_deployments_connect_as_their_table_identity(service: str) -> None:
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "base" / "deployments.yaml").read_text(encoding="utf-8")))
    deployment = next(d for d in docs if d and d["metadata"]["name"] == service)
    env = _env(deployment["spec"]["template"]["spec"]["containers"][0])
    user = identity_of_service(service).user
    assert env["NATS_USER"] == user
    nats = next(d for d in yaml.safe_load_all(nats_config.K8S_NATS.read_text(encoding="utf-8"))
                if d["kind"] == "StatefulSet")
    server_env = _env(nats["spec"]["template"]["spec"]["containers"][0])
    assert env["NATS_PASSWORD"] == server_env[env_reference(user)[1:]]  # the same secret key
