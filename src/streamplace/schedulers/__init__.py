"""Schedulers behind one interface (docs/architecture.md, "Scheduler interface") and their registry.

Each scheduler's module is imported when its name is first looked up in the registry (``create("ffd")``), when
the registry is gone over as a whole (``scheduler_names()``), or when it is imported or read here as an
attribute (``streamplace.schedulers.rstorm``): a plan by one scheduler imports that one alone.
"""

from __future__ import annotations

import importlib
from typing import Any

from streamplace.schedulers.base import REGISTRY, BaseScheduler, Scheduler, create, scheduler_names

_MODULES = ("ds2", "exhaustive", "ffd", "hetero", "latency_aware", "max_throughput", "odrp", "optimal",
            "round_robin", "rstorm", "storm_even", "storm_ras")

__all__ = [
    "REGISTRY", "BaseScheduler", "Scheduler", "create", "ds2", "exhaustive", "ffd", "hetero", "latency_aware",
    "max_throughput", "odrp",
    "optimal", "round_robin", "rstorm", "scheduler_names", "storm_even", "storm_ras",
]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
