"""Who connects as whom: each supervised child as its own identity, every CLI command as ``ops``."""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_cli.stack.supervisor import SERVICES, Stack
from duocthu_runtime.access import OPS, identity_of_service
from duocthu_runtime.devstack import ensure_credentials, load_credentials, ops_settings


@pytest.fixture(autouse=True)
def _no_inherited_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NATS_USER", "NATS_PASSWORD", "NATS_CREDS", "NATS_INBOX_PREFIX"):
        monkeypatch.delenv(name, raising=False)


def test_the_cli_finds_the_ops_identity_in_the_var_dir(tmp_path: Path) -> None:
    passwords = ensure_credentials(tmp_path / "nats")
    settings = ops_settings("nats://127.0.0.1:1", tmp_path)
    assert (settings.nats_user, settings.nats_password) == (OPS, passwords[OPS])
    assert settings.inbox_prefix == "_INBOX_ops"
    assert ensure_credentials(tmp_path / "nats") == passwords  # reused, not regenerated, across restarts


def test_credentials_from_the_environment_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ensure_credentials(tmp_path / "nats")
    monkeypatch.setenv("NATS_USER", "someone")
    monkeypatch.setenv("NATS_PASSWORD", "secret")
    settings = ops_settings("nats://127.0.0.1:1", tmp_path)
    assert (settings.nats_user, settings.nats_password) == ("someone", "secret")


def test_without_a_stack_there_is_no_identity(tmp_path: Path) -> None:
    assert load_credentials(tmp_path / "nats") is None
    assert ops_settings("nats://127.0.0.1:1", tmp_path).nats_user is None


@pytest.mark.parametrize("service", list(SERVICES))
def test_each_supervised_child_connects_as_its_own_identity(tmp_path: Path, service: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATS_CREDS", "/somewhere/else.creds")  # an operator's own environment is not inherited
    stack = Stack(var_dir=tmp_path, nats_url="nats://127.0.0.1:1", credentials=ensure_credentials(tmp_path / "nats"))
    env = stack.add_child(service, 0).env
    user = identity_of_service(service).user
    assert env["NATS_USER"] == user and env["NATS_PASSWORD"] == stack.credentials[user]
    assert "NATS_CREDS" not in env
    assert stack.ops_settings().nats_user == OPS
