"""The live workflow: a pipeline under an elastic policy on Spark (local, or pinned on a standalone cluster),
measured, re-planned and re-enacted from its checkpoint every interval, lost workers' replicas re-placed; the
live page fed with every point, plan and decision.

Nothing here prints or knows the command line: the Spark session and the live page come from the caller's
``session`` and ``open_page`` (workflows/run.py's types), warnings and notes go to ``on_warning`` / ``on_info``,
each decision of the loop to ``on_step(at_s, what)``. `streamplace live` (cli/live.py) calls :func:`enact_live`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.workflows.run import PageOpener, Say, SessionOpener, _silent, finish_page

#: the loop's own messages: (seconds since it started, what it did)
StepFn = Callable[[float, str], None]
#: a fault the loop injects: (at seconds, what, the action)
Fault = tuple[float, str, Callable[[], None]]


def enact_live(t: Topology, c: Cluster, policy: Any, state: Any, master: str | None, cores: int | None,
               trigger_s: float, out_dir: Path, sink: str, interval_s: float, duration_s: float,
               faults: list[Fault] | None = None, *, engine: EngineSettings, session: SessionOpener,
               open_page: PageOpener | None = None, on_warning: Say = _silent, on_info: Say = _silent,
               on_step: StepFn | None = None, title: str = "") -> Any:
    """Run ``t`` under ``policy`` (elastic/live_policies.py) for ``duration_s`` and return the loop's LiveResult
    (spark/runtime/live.py). On the standalone cluster of ``state`` every replica is pinned and lost workers are watched
    for; the page predicts (``engine``) for where the plan runs — this machine as one node, or the cluster with
    each node's CPU scaled to its quota — and is a view: its errors are said once, never raised, and its server
    stops on every way out."""
    from streamplace.spark.cluster.standalone import emulated_links
    from streamplace.spark.cluster.state import alive_nodes
    from streamplace.spark.runtime.live import LiveRun
    from streamplace.spark.runtime.pipeline import PipelineConfig
    from streamplace.spark.runtime.run import local_machine
    from streamplace.spark.runtime.watch import LiveFeed, describe_plan, guarded

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
    feed = watch = None
    if live_page is not None:
        feed = LiveFeed(live_page, t, lambda: runner.started, lambda: runner.plan,
                        functools.partial(describe_plan, t, c, target, one_node, engine))
        watch = guarded(feed, on_warning)

    def step(at: float, what: str) -> None:
        if feed is not None:
            feed.decision(at, what)
        if on_step is not None:
            on_step(at, what)

    try:
        try:
            result = runner.run(duration_s, faults, progress=step, watch=watch)
        except BaseException:
            if live_page is not None:
                finish_page(live_page, "failed", None, on_warning)
            raise
        if live_page is not None and feed is not None:
            guarded(feed.sync, on_warning)(result)  # the enactments since the last poll, said once if it fails
            if (written := finish_page(live_page, "finished", None, on_warning)) is not None:
                on_info(f"live page written to {written}")
    finally:
        if live_page is not None:
            live_page.close()
    return result
