"""How spark/'s public faces load: a face names what the workflows may use of one job (enact a plan, run a live
loop, manage a cluster, measure, the autoscaler's edges) and imports each name's module on its first use.

A face cannot import its modules at its top: they differ in weight (the query builder loads PySpark, the cluster
manager's state does not), and `streamplace cluster status` or a plan that reads a calibration must not start
PySpark's import for a name it does not use. So a face lists ``name → module`` (for the loader) and imports the
same names under ``if TYPE_CHECKING:`` (for the type checker); tests/test_layers.py checks that the two agree.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def names_on_first_use(face: str, where: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for the face ``face``: ``where`` maps each module (dotted, absolute) to
    the names the face takes from it; a name's module is imported when the name is first asked for.

    The face keeps no copy: each look-up reads the module's current attribute (a dict look-up once the module is
    loaded), so the face is a view of its modules — what a test patches there, the face gives too."""
    module_of = {name: module for module, names in where.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {face!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__
