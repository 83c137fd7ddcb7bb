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
    what_if = sp.storm_over_time(topology, cluster, best.plan, 300, at_capacity=1.5)  # Storm over time
    print(what_if.summary.goodput, what_if.summary.starving)

Specs are a built-in name, a YAML/JSON path, ``"-"`` (standard input) or a mapping; errors are
:class:`streamplace.errors.StreamplaceError` subclasses that name the file, the field and the fix.
Predictions are for the ``spark`` engine, as on the command line (with the calibration file written by
``streamplace calibrate``, else built-in constants), unless another is named: ``"ideal"`` (the papers' own
model), ``"storm"``, or an :class:`~streamplace.perf.engines.EngineSettings`.

Each function is a use case of :mod:`streamplace.workflows` (the command line calls the same ones); this module
only gathers them, and checks the arguments of ``autoscale`` and ``recommend`` before a Spark session could be
asked for (the others check theirs where they begin: :mod:`streamplace.workflows.arguments`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamplace.autoscaler.decide import Decision
from streamplace.workflows import arguments
from streamplace.workflows.autoscale import AutoscaleHandle
from streamplace.workflows.autoscale import autoscale as _autoscale
from streamplace.workflows.autoscale import recommend as _recommend
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
from streamplace.workflows.over_time import storm_over_time
from streamplace.workflows.planning import Prediction, compare, evaluate, plan, predict, schedulers
from streamplace.workflows.run import run

__all__ = ["AutoscaleHandle", "Engine", "Instance", "Prediction", "Spec", "autoscale", "compare", "engine_settings",
           "evaluate", "load_cluster", "load_instance", "load_profile", "load_topology", "plan", "predict", "recommend",
           "run", "schedulers", "storm_over_time"]


def _check_autoscale(query: Any, log_path: Any, page: Any, page_port: Any, on_decision: Any, policy: Any) -> None:
    """The arguments of autoscale / recommend, each of its type; a query that is not one would otherwise open a
    Spark session of its own before failing."""
    arguments.streaming_query(query)
    arguments.path(log_path, "log_path", "give a file for the decisions' log, e.g. log_path='autoscale.jsonl', or None")
    arguments.flag(page, "page")
    if isinstance(page_port, bool) or not isinstance(page_port, int) or not 0 <= page_port <= 65535:
        raise arguments.wrong_type("page_port", page_port, "a port number in [0, 65535]",
                                   "write e.g. page_port=8080, or 0 for any free port")
    arguments.callback(on_decision, "on_decision", optional=True)
    arguments.text(policy, "policy", "write e.g. policy='streamplace'")


def autoscale(query: Any, *, log_path: str | Path | None = None, page: bool = False, page_port: int = 0,
              on_decision: Callable[[Decision], None] | None = None, policy: str = "streamplace",
              **options: Any) -> AutoscaleHandle:
    """Scale ``query``'s executors from now on (a running ``StreamingQuery`` of a classic PySpark session on a
    cluster with dynamic allocation off). ``options``: AutoscaleOptions' fields (target_batch_s,
    target_utilization, catch_up_s, worker_types, …); ``policy``: "streamplace" (ours), or "occupation" /
    "dstreams" — the rules users have today (autoscaler/baselines.py), for comparison. Refuses, before touching
    the query, arguments of the wrong type, options out of range and applications whose executors the driver
    cannot change (saying what to change)."""
    _check_autoscale(query, log_path, page, page_port, on_decision, policy)
    return _autoscale(query, log_path=log_path, page=page, page_port=page_port, on_decision=on_decision,
                      policy=policy, **options)


def recommend(query: Any, *, log_path: str | Path | None = None, page: bool = False, page_port: int = 0,
              on_decision: Callable[[Decision], None] | None = None, policy: str = "streamplace",
              **options: Any) -> AutoscaleHandle:
    """Decide for ``query`` as ``autoscale`` would, and only report: works in local mode and on clusters alike."""
    _check_autoscale(query, log_path, page, page_port, on_decision, policy)
    return _recommend(query, log_path=log_path, page=page, page_port=page_port, on_decision=on_decision,
                      policy=policy, **options)

