"""Schedulers behind one interface (docs/architecture.md, "Scheduler interface") and their registry."""

from streamplace.schedulers import (
    ds2,
    exhaustive,
    ffd,
    hetero,
    latency_aware,
    max_throughput,
    odrp,
    optimal,
    round_robin,
    rstorm,
)
from streamplace.schedulers.base import REGISTRY, BaseScheduler, Scheduler, create, scheduler_names

__all__ = [
    "REGISTRY", "BaseScheduler", "Scheduler", "create", "ds2", "exhaustive", "ffd", "hetero", "latency_aware",
    "max_throughput", "odrp",
    "optimal", "round_robin", "rstorm", "scheduler_names",
]
