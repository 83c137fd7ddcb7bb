"""spark/'s faces (issue 54, item 1): one module per job the workflows use, each name loaded on first use.

A face lists ``name → module`` for its loader (WHERE) and imports the same names for the type checker; these
tests hold the two together, check that a face gives its module's very object, and that importing a face loads
none of what it names (no PySpark for `cluster status` or a calibrated plan)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_layers import FACES, PACKAGE

#: the faces that load their names on first use (events.py is a plain module: light, and the runtime's own)
LAZY_FACES = sorted(FACES - {"streamplace.spark.events"})


def _face_file(face: str) -> Path:
    rel = Path(*face.split(".")[1:])
    return PACKAGE / rel / "__init__.py" if (PACKAGE / rel).is_dir() else PACKAGE / rel.with_suffix(".py")


def _typing_imports(face: str) -> dict[str, tuple[str, ...]]:
    """The names a face imports under ``if TYPE_CHECKING:``, by module."""
    tree = ast.parse(_face_file(face).read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module, f"{face}: only 'from … import' under the check"
                assert all(a.asname in (None, a.name) for a in imp.names), f"{face}: a face renames nothing"
                found.setdefault(imp.module, []).extend(a.name for a in imp.names)
    return {module: tuple(sorted(names)) for module, names in found.items()}


@pytest.mark.parametrize("face", LAZY_FACES)
def test_a_face_types_what_it_loads(face: str) -> None:
    where = importlib.import_module(face).WHERE
    assert _typing_imports(face) == {module: tuple(sorted(names)) for module, names in where.items()}


@pytest.mark.parametrize("face", LAZY_FACES)
def test_a_face_gives_its_modules_objects(face: str) -> None:
    module = importlib.import_module(face)
    for source, names in module.WHERE.items():
        for name in names:
            assert getattr(module, name) is getattr(importlib.import_module(source), name), f"{face}.{name}"
    with pytest.raises(AttributeError, match=face.replace(".", r"\.")):
        module.no_such_name  # noqa: B018 — the face's loader refuses a name it does not list


def test_importing_the_faces_loads_none_of_their_names() -> None:
    """A fresh interpreter imports every face: no PySpark, none of the modules the faces name; then the cluster
    face's state is read, still without PySpark."""
    code = (f"import sys, importlib\nfaces = {sorted(FACES)!r}\n"
            "for f in faces: importlib.import_module(f)\n"
            "named = {m for f in faces for m in getattr(sys.modules[f], 'WHERE', {})}\n"
            "print(sorted(m for m in named | {'pyspark'} if m in sys.modules))\n"
            "from streamplace.spark.cluster import state_root\n"
            "print('pyspark' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["[]", "False"], out


def test_a_face_package_still_imports_its_submodules() -> None:
    """``from streamplace.spark.cluster import state`` is the module, not a name the face refuses."""
    from streamplace.spark.cluster import state

    assert state.__name__ == "streamplace.spark.cluster.state"
