"""The runtime's public faces: every name resolves, the type checker's view matches the run-time one, and a
command that needs only the progress bar or a clock does not load the bus."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import duocthu_runtime
import duocthu_runtime.access
import duocthu_runtime.devstack


def _type_checking_imports() -> dict[str, str]:
    """name -> module, from the ``if TYPE_CHECKING:`` block of the face's source."""
    tree = ast.parse(Path(duocthu_runtime.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                 and node.test.id == "TYPE_CHECKING")
    found: dict[str, str] = {}
    for statement in block.body:
        assert isinstance(statement, ast.ImportFrom) and statement.module
        for alias in statement.names:
            assert alias.asname == alias.name, f"{alias.name}: re-export it as itself"
            found[alias.name] = statement.module
    return found


def test_the_type_checker_sees_what_runs() -> None:
    assert _type_checking_imports() == duocthu_runtime._MODULE_OF
    assert sorted(duocthu_runtime.__all__) == sorted(duocthu_runtime._MODULE_OF)


@pytest.mark.parametrize("name", duocthu_runtime.__all__)
def test_every_name_of_the_face_is_its_module_s_object(name: str) -> None:
    module = importlib.import_module(duocthu_runtime._MODULE_OF[name])
    assert getattr(duocthu_runtime, name) is getattr(module, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Buss'"):
        duocthu_runtime.Buss  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.parametrize("face", [duocthu_runtime.devstack, duocthu_runtime.access])
def test_the_subpackage_faces_resolve(face: object) -> None:
    names = face.__all__  # type: ignore[attr-defined]
    assert names and all(getattr(face, name) is not None for name in names)


def test_a_light_name_does_not_load_the_bus() -> None:
    """``duocthu eval``/``corpus`` need the progress bar and a clock: FastStream, NATS and OpenTelemetry stay out."""
    code = ("import sys\nfrom duocthu_runtime import JobProgress, utcnow, file_sha256\n"
            "print(sorted(m for m in ('faststream', 'nats', 'opentelemetry', 'uvicorn') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]"
    heavy = subprocess.run([sys.executable, "-c", "import sys\nfrom duocthu_runtime import Bus\n"
                            "print('faststream' in sys.modules)"], capture_output=True, text=True, check=True,
                           timeout=120)
    assert heavy.stdout.strip() == "True"  # the probe above can tell
