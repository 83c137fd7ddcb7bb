"""Built-in operator logic, and the logic of an operator's spec: importing this package registers every built-in
name in ``streamplace.spark.query.logic.REGISTRY`` (its modules use that module's ``register``), and
:func:`logic_of` looks an operator's logic up there or imports it (``package.module:function``).
"""

from __future__ import annotations

import importlib

from streamplace.errors import Problem, SpecError
from streamplace.model.topology import Operator
from streamplace.spark.query.library import debs, generic, oee, work  # noqa: F401  (registers the built-ins)
from streamplace.spark.query.logic import REGISTRY, Logic


def logic_of(op: Operator, speedup: float = 1.0, where: str = "topology") -> Logic:
    """The logic of an operator from its ``logic`` spec; ``speedup`` scales emulated CPU work (node speed)."""
    params = dict(op.logic)
    name = str(params.pop("name", "rate" if op.is_source else ("busy" if op.cost_ms > 0 else "pass")))
    if name in REGISTRY:
        try:
            return REGISTRY[name][0](op, params, speedup)
        except (TypeError, ValueError) as exc:
            raise SpecError([Problem(f"operators.{op.id}.logic", f"bad parameters for {name!r}: {exc}",
                                     "see `streamplace run --help` for the built-in logic and their parameters")],
                            where) from None
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            target = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise SpecError([Problem(f"operators.{op.id}.logic.name", f"cannot load {name!r}: {exc}",
                                     "give an importable package.module:function")], where) from None
        return target(op, params) if params.get("factory") else Logic(target)
    raise SpecError([Problem(f"operators.{op.id}.logic.name", f"unknown logic {name!r}",
                             f"use one of {', '.join(sorted(REGISTRY))} or package.module:function")], where)
