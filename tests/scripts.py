"""Scripts of the repository (benchmarks/, scripts/) imported by tests as modules."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(path: Path, name: str | None = None, *, siblings: bool = False) -> ModuleType:
    """The script at ``path`` imported as module ``name`` (default: its file's stem), once: it is registered in
    ``sys.modules`` — dataclasses look their module up there — and a later call returns the same module.
    ``siblings``: the script's directory goes first on ``sys.path``, for a script that imports its neighbours."""
    name = name or path.stem
    if name in sys.modules:
        return sys.modules[name]
    if siblings and str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # not a half-run module for the next caller
        raise
    return module
