"""The elastic controllers by name, and the tunable constants of each (what ``--param`` may set).

The simulator (sim/factory.py) and the live policies (live_policies.py) build controllers from these; the
simulation's own settings are the simulator's business.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from streamplace.elastic.btu import BtuController
from streamplace.elastic.threshold import ThresholdController
from streamplace.errors import Problem, SpecError

CONTROLLERS: dict[str, type] = {"btu": BtuController, "threshold": ThresholdController}


INTERNAL_FIELDS = {"name", "migrations", "prolongations", "releases", "rollbacks", "prolonged", "last_up", "reason_s"}


def controller_parameters(name: str) -> dict[str, Any]:
    """The tunable constants of a controller and their defaults."""
    cls = controller_class(name)
    return {f.name: field_default(f) for f in dataclasses.fields(cls) if f.name not in INTERNAL_FIELDS}


def controller_class(name: str) -> type:
    if name not in CONTROLLERS:
        raise SpecError([Problem("controller", f"unknown controller {name!r}",
                                 f"use one of {', '.join(CONTROLLERS)}")])
    return CONTROLLERS[name]


def field_default(f: dataclasses.Field) -> Any:
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
