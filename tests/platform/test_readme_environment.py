"""The README's environment table and the settings classes stay in step.

Every variable a settings class reads from the environment is documented in the table, and every variable
the table documents is read: by a settings class, or (the few named below) by the code that names it.
The table's first column writes variables in backticks, several to a cell, with two shorthands:
``{ANSWER,JUDGE}_X`` (one per role) and ``…_Y`` (the previous variable's role prefixes again).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from pydantic_settings import BaseSettings

from duocthu_providers.llm.settings import ChatSettings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: Variables read outside a settings class, and the file that reads each one.
READ_ELSEWHERE = {
    "OTEL_EXPORTER_OTLP_ENDPOINT": ROOT / "libs" / "runtime" / "duocthu_runtime" / "observability" / "tracing.py",
}
#: The base of the per-role chat settings: never read from the environment itself (``chat_settings`` builds a
#: role's class, whose prefix, ``ANSWER_`` or ``JUDGE_``, every field then carries).
NOT_READ_DIRECTLY: tuple[type[BaseSettings], ...] = (ChatSettings,)


def _settings_modules() -> list[str]:
    """Every ``settings`` module of the libraries and services, as an importable name."""
    paths = [*ROOT.glob("libs/*/duocthu_*/**/settings.py"), *ROOT.glob("services/*/duocthu_*/settings.py")]
    return [".".join(path.relative_to(ROOT).with_suffix("").parts[2:]) for path in sorted(paths)]  # libs/<lib>/


def _subclasses(cls: type[BaseSettings]) -> set[type[BaseSettings]]:
    found: set[type[BaseSettings]] = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


def settings_variables() -> dict[str, set[str]]:
    """variable -> the settings classes that read it."""
    for module in _settings_modules():
        importlib.import_module(module)
    read: dict[str, set[str]] = {}
    for cls in _subclasses(BaseSettings):
        if not cls.__module__.startswith("duocthu_") or cls in NOT_READ_DIRECTLY:
            continue
        prefix = str(cls.model_config.get("env_prefix", ""))
        for field, info in cls.model_fields.items():
            assert info.alias is None and info.validation_alias is None, f"{cls.__name__}.{field}: an alias"
            read.setdefault(f"{prefix}{field}".upper(), set()).add(cls.__name__)
    return read


def documented_variables(readme: str = "") -> set[str]:
    text = readme or README.read_text(encoding="utf-8")
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, "the README has no environment table"
    found: set[str] = set()
    for row in rows:
        cell = row.split("|")[1]
        prefixes = [""]
        for token in re.findall(r"`([^`]+)`", cell):
            roles = re.fullmatch(r"\{([A-Z_,]+)\}_([A-Z0-9_]+)", token)
            if roles:
                prefixes = [f"{role}_" for role in roles.group(1).split(",")]
                found |= {f"{p}{roles.group(2)}" for p in prefixes}
            elif token.startswith("…_"):
                found |= {f"{p}{token.removeprefix('…_')}" for p in prefixes}
            else:
                assert re.fullmatch(r"[A-Z][A-Z0-9_]*", token), f"not a variable in the table: {token!r}"
                prefixes = [""]
                found.add(token)
    return found


def test_the_notation_is_read_as_written() -> None:
    table = ("## Environment variables\n\n| variable | default |\n|---|---|\n"
             "| `NATS_USER`, `NATS_PASSWORD` | x |\n"
             "| `{ANSWER,JUDGE}_OPENAI_BASE_URL`, `…_OPENAI_MODEL` | y |\n| `VAR_DIR` | z |\n\n## Audit\n")
    assert documented_variables(table) == {"NATS_USER", "NATS_PASSWORD", "ANSWER_OPENAI_BASE_URL",
                                           "JUDGE_OPENAI_BASE_URL", "ANSWER_OPENAI_MODEL", "JUDGE_OPENAI_MODEL",
                                           "VAR_DIR"}


def test_every_variable_a_settings_class_reads_is_documented() -> None:
    missing = {name: sorted(classes) for name, classes in settings_variables().items()
               if name not in documented_variables()}
    assert not missing, f"read but not in the README's environment table: {missing}"


def test_every_documented_variable_is_read() -> None:
    read = set(settings_variables())
    for name, reader in READ_ELSEWHERE.items():
        assert name in reader.read_text(encoding="utf-8"), f"{reader} no longer reads {name}"
        read.add(name)
    unread = sorted(documented_variables() - read)
    assert not unread, f"in the README's environment table but read by nothing: {unread}"


def test_the_settings_classes_are_all_found() -> None:
    """A settings module the glob missed would make the two tests above vacuous for its variables."""
    classes = {cls for names in settings_variables().values() for cls in names}
    assert {"RuntimeSettings", "GatewaySettings", "RetrievalSettings", "IngestSettings", "EmbeddingSettings",
            "AnswerChatSettings", "JudgeChatSettings"} <= classes
