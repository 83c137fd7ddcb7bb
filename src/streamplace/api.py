"""The Python API: load an instance, plan it, predict, compare schedulers, run a plan on local Spark.

Everything the command line does, with typed parameters instead of ``key=value`` text::

    import streamplace as sp

    topology, cluster = sp.load_topology("diamond-cpu"), sp.load_cluster("hetero-12")
    plan = sp.plan(topology, cluster, "hetero")
    print(plan.status, plan.source_rates, plan.predicted["throughput"])
    rows = sp.compare(topology, cluster, ["r-storm", "hetero", "optimal"], time_limit_s=10)
    best = max((r for r in rows if r.has_values), key=lambda r: r.value("throughput"))
    result = sp.run(topology, cluster, best.plan, duration_s=30)   # starts local Spark
    print(result.measured["throughput"], result.predicted["throughput"])

Specs are a built-in name, a YAML/JSON path, ``"-"`` (standard input) or a mapping; errors are
:class:`streamplace.errors.StreamplaceError` subclasses that name the file, the field and the fix.
Predictions are for the ``spark`` engine, as on the command line (with the calibration file written by
``streamplace calibrate``, else built-in constants), unless another is named: ``"ideal"`` (the papers' own
model), ``"storm"``, or an :class:`~streamplace.perf.engines.EngineSettings`.

Each function is a use case of :mod:`streamplace.workflows` (the command line calls the same ones); this module
only gathers them.
"""

from __future__ import annotations

from streamplace.workflows.autoscale import AutoscaleHandle, autoscale, recommend
from streamplace.workflows.instance import (
    Engine,
    Instance,
    Spec,
    engine_settings,
    load_cluster,
    load_instance,
    load_profile,
    load_topology,
)
from streamplace.workflows.planning import Prediction, compare, evaluate, plan, predict, schedulers
from streamplace.workflows.run import run

__all__ = ["AutoscaleHandle", "Engine", "Instance", "Prediction", "Spec", "autoscale", "compare", "engine_settings",
           "evaluate", "load_cluster", "load_instance", "load_profile", "load_topology", "plan", "predict", "recommend",
           "run", "schedulers"]
