"""The live workflow: a pipeline under an elastic policy on Spark (local, or pinned on a standalone cluster),
measured, re-planned and re-enacted from its checkpoint every interval, lost workers' replicas re-placed; the
live page fed with every point, plan and decision.

Nothing here prints or knows the command line: the Spark session and the live page come from the caller's
``session`` and ``open_page`` (workflows/run.py's types), warnings and notes go to ``on_warning`` / ``on_info``,
each decision of the loop to ``on_step(at_s, what)``. The page and ``on_step`` (the terminal) subscribe to the
loop's events (spark/runtime/events.py). `streamplace live` (cli/live.py) calls :func:`enact_live`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamplace.errors import Problem, SpecError
from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.workflows.instance import silent
from streamplace.workflows.run import PageOpener, Say, SessionOpener

#: the loop's own messages: (seconds since it started, what it did)
StepFn = Callable[[float, str], None]
#: a fault the loop injects: (at seconds, what, the action)
Fault = tuple[float, str, Callable[[], None]]


def enact_live(t: Topology, c: Cluster, policy: Any, state: Any, master: str | None, cores: int | None,
               trigger_s: float, out_dir: Path, sink: str, interval_s: float, duration_s: float,
               faults: list[Fault] | None = None, *, engine: EngineSettings, session: SessionOpener,
               open_page: PageOpener | None = None, on_warning: Say = silent, on_info: Say = silent,
               on_step: StepFn | None = None, title: str = "") -> Any:
    """Run ``t`` under ``policy`` (elastic/live_policies.py) for ``duration_s`` and return the loop's LiveResult
    (spark/runtime/live.py). On the standalone cluster of ``state`` every replica is pinned and lost workers are watched
    for; the page predicts (``engine``) for where the plan runs — this machine as one node, or the cluster with
    each node's CPU scaled to its quota — and is a view: its errors are said once, never raised, and its server
    stops on every way out."""
    from streamplace.spark.cluster.standalone import emulated_links
    from streamplace.spark.cluster.state import alive_nodes
    from streamplace.spark.runtime.events import Listeners
    from streamplace.spark.runtime.live import LiveRun
    from streamplace.spark.runtime.pipeline import PipelineConfig
    from streamplace.spark.runtime.run import local_machine
    from streamplace.workflows.feeds import Guarded, PageFeed, Steps, describe_plan

    workers = state.layout() if state is not None else None
    spark = session(out_dir / "spark.log")
    cfg = PipelineConfig(trigger_s=trigger_s, sink=sink, out_dir=out_dir, workers=workers,  # type: ignore[arg-type]
                         link_latency_ms=emulated_links(state, c))  # as `run`
    alive = functools.partial(alive_nodes, state) if state is not None else None
    runner = LiveRun(spark, t, c, policy, cfg, interval_s, alive)
    if state is None:
        target, one_node = local_machine(cores, master), True
    else:  # the workers run under their quotas: the page's prediction and CPU shares are for that cluster
        from streamplace.model.cluster import scaled_cluster

        target, one_node = (scaled_cluster(c, state.cpu_scale) if state.cpu_scale else c), False
    live_page = None if open_page is None else open_page(
        title or f"{t.name} under {policy.name} on {master or 'local'}", duration_s, target, out_dir / "live-page.html")
    feed = None
    if live_page is not None:
        feed = PageFeed(live_page, describe=functools.partial(describe_plan, t, c, target, one_node, engine),
                        on_warning=on_warning, on_info=on_info)
    try:  # the loop ends the page (finished or failed) as it ends: LiveRun.run tells its listener
        return runner.run(duration_s, faults, Listeners(None if feed is None else Guarded(feed, on_warning),
                                                        None if on_step is None else Steps(on_step)))
    finally:
        if live_page is not None:
            live_page.close()


LIVE_SINKS = ("parquet", "noop")


def prepare_live(t: Topology, c: Cluster, policy: str, plan: Any, scheduler: str, params: dict[str, str],
                 state: Any, kills: list[tuple[str, float]] | None = None, sink: str = "parquet",
                 interval_s: float | None = None, on_warning: Say = silent) -> tuple[Any, list[Fault]]:
    """The live policy by name, started from ``plan`` (a Plan, a plan file, or None: planned now with
    ``scheduler``; re-placed to fit the nodes' replica slots), and the faults to inject: ``kills``, (node,
    seconds) pairs, each killing that node's worker (only on a cluster `cluster up` started). ``on_warning``:
    what is said of a plan file (workflows.run.plan_to_run)."""
    from streamplace.elastic.live_policies import fits_slots, make_policy, place_counts
    from streamplace.spark.runtime.layout import worker_layout
    from streamplace.workflows.cluster import kill_worker
    from streamplace.workflows.run import plan_to_run

    if sink not in LIVE_SINKS:
        raise SpecError([Problem("sink", f"unknown sink {sink!r}", f"use {' or '.join(LIVE_SINKS)}")])
    workers = state.layout() if state is not None else None
    slots = {w.node: w.replica_slots for w in (workers or worker_layout(c))}
    faults: list[Fault] = []
    for node, when in kills or []:
        if state is None:
            raise SpecError([Problem("kill", "only a standalone cluster's workers can be killed",
                                     "start one with `streamplace cluster up` and give [[master]] its URL")])
        if node not in slots:
            raise SpecError([Problem("kill", f"{node!r} is no node of {c.name}",
                                     f"name one of {', '.join(slots)}")])
        faults.append((when, f"kill {node}", functools.partial(kill_worker, state, node)))
    first = None
    if policy != "s-odrp":
        first = plan_to_run(plan, scheduler, t, c, on_warning)
        if not fits_slots(first, slots):
            first = place_counts(t, c, first.counts(), slots)
    return make_policy(policy, t, c, params, slots, first, interval_s=interval_s), faults
