"""The live workflow: a pipeline under an elastic policy on Spark (local, or pinned on a standalone cluster),
measured, re-planned and re-enacted from its checkpoint every interval, lost workers' replicas re-placed; the
live page fed with every point, plan and decision.

Nothing here prints or knows the command line: the Spark session and the live page come from the caller's
``session`` and ``open_page`` (workflows/run.py's types), warnings and notes go to ``on_warning`` / ``on_info``,
each decision of the loop to ``on_step(at_s, what)``. The page and ``on_step`` (the terminal) subscribe to the
loop's events (spark/events.py). `streamplace live` (cli/live.py) calls :func:`enact_live`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.errors import Problem, SpecError
from streamplace.model.cluster import Cluster, scaled_cluster
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.spark import cluster as spark_cluster
from streamplace.spark import enact as spark_enact
from streamplace.spark import live as spark_live
from streamplace.spark.events import Listeners
from streamplace.workflows.cluster import kill_worker
from streamplace.workflows.instance import silent
from streamplace.workflows.live_settings import LiveHooks, LiveSettings
from streamplace.workflows.run import Say, plan_to_run

if TYPE_CHECKING:
    from streamplace.spark.cluster import ClusterState

#: the default callbacks: none
NO_HOOKS = LiveHooks()
#: a fault the loop injects: (at seconds, what, the action)
Fault = tuple[float, str, Callable[[], object]]  # what its action returns is not used


def enact_live(t: Topology, c: Cluster, policy: Any, settings: LiveSettings, engine: EngineSettings, *,
               state: ClusterState | None = None, master: str | None = None, faults: list[Fault] | None = None,
               hooks: LiveHooks = NO_HOOKS) -> Any:
    """Run ``t`` under ``policy`` (elastic/live_policies.py) for ``settings.duration_s`` and return the loop's
    LiveResult (spark/runtime/live.py). On the standalone cluster of ``state`` every replica is pinned and lost
    workers are watched for; the page (``hooks.open_page``) predicts (``engine``) for where the plan runs — this
    machine as one node, or the cluster with each node's CPU scaled to its quota — and is a view: its errors are said
    once, never raised, and its server stops on every way out. ``hooks.session`` opens the SparkSession (its log
    in the given file; None: spark/cluster/connect.session_for of ``master``, ``state`` and ``settings.cores``).
    ``settings.bounded_sources``: the sources are run's (bounded_source.py, no cap) rather than Spark's ``rate``
    source — rows arrive one by one, and they can stall (a ``stall`` fault needs them); a checkpoint they wrote
    resumes with them whatever the setting says (its offsets are theirs)."""
    # lazy: command-line start (the feeds: jinja2)
    from streamplace.workflows.feeds import Guarded, PageFeed, Steps, describe_plan

    out_dir, on_warning = settings.out_dir, hooks.on_warning
    workers = state.layout() if state is not None else None
    spark = (hooks.session(out_dir / "spark.log") if hooks.session is not None
             else spark_cluster.session_for(master, state, settings.cores, out_dir / "spark.log"))
    cfg = spark_enact.PipelineConfig(trigger_s=settings.trigger_s, sink=settings.sink, out_dir=out_dir, workers=workers,
                                     link_latency_ms=spark_cluster.emulated_links(state, c),  # as `run`
                                     admission={} if settings.bounded_sources or _bounded_checkpoint(out_dir) else None)
    alive = functools.partial(spark_cluster.alive_nodes, state) if state is not None else None
    runner = spark_live.LiveRun(spark, t, c, policy, cfg, settings.interval_s, alive)
    if state is None:
        target, one_node = spark_enact.local_machine(settings.cores, master), True
    else:  # the workers run under their quotas: the page's prediction and CPU shares are for that cluster
        target, one_node = (scaled_cluster(c, state.cpu_scale) if state.cpu_scale else c), False
    live_page = None if hooks.open_page is None else hooks.open_page(
        settings.title or f"{t.name} under {policy.name} on {master or 'local'}", settings.duration_s, target,
        out_dir / "live-page.html")
    feed = None
    if live_page is not None:
        feed = PageFeed(live_page, describe=functools.partial(describe_plan, t, c, target, one_node, engine),
                        on_warning=on_warning, on_info=hooks.on_info)
    try:  # the loop ends the page (finished or failed) as it ends: LiveRun.run tells its listener
        return runner.run(settings.duration_s, faults,
                          Listeners(None if feed is None else Guarded(feed, on_warning),
                                    None if hooks.on_step is None else Steps(hooks.on_step)))
    finally:
        if live_page is not None:
            live_page.close()


def _bounded_checkpoint(out_dir: Path) -> bool:
    """Did bounded sources write the checkpoint in ``out_dir`` (their arrival origin is there)?"""
    return (out_dir / "_checkpoint" / spark_live.ORIGIN_FILE).exists()


#: the faults `live --fault` injects: kind → (needs a node, needs a duration)
FAULT_KINDS = {"worker": (True, False), "executor": (True, False), "slow": (True, True), "freeze": (True, True),
               "stall": (False, True)}
#: a straggler's CPU: this share of its node's quota
SLOW_FACTOR = 0.1


@dataclass(frozen=True)
class FaultSpec:
    """One fault to inject ``at_s`` seconds into a live run: ``worker`` (its node's worker killed, SIGKILL),
    ``executor`` (the node's executors killed; the worker stays), ``slow`` (the node's CPU quota cut to
    SLOW_FACTOR of its own for ``for_s``), ``freeze`` (every process of the node stopped for ``for_s``: the node cut
    off), ``stall`` (the sources admit nothing for ``for_s``, then what arrived meanwhile)."""

    kind: str
    at_s: float
    node: str | None = None
    for_s: float | None = None

    @property
    def what(self) -> str:
        return (f"{self.kind}{' ' + self.node if self.node else ''}"
                + (f" for {self.for_s:g} s" if self.for_s is not None else ""))


def parse_fault(text: str, option: str = "fault") -> FaultSpec:
    """``KIND[:NODE]@SECONDS[+FOR]`` (e.g. ``executor:b@40``, ``slow:b@40+60``, ``stall@40+30``) as a FaultSpec."""
    fix = ("write KIND[:NODE]@SECONDS[+SECONDS], e.g. executor:b@40, slow:b@40+60, freeze:c@40+30 or stall@40+30; "
           f"KIND one of {', '.join(FAULT_KINDS)}")
    head, sep, when = text.partition("@")
    kind, _, node = head.partition(":")
    at, plus, span = when.partition("+")
    if not sep or kind not in FAULT_KINDS:
        raise SpecError([Problem(option, f"{text!r} is not a fault", fix)])
    try:
        at_s, for_s = float(at), float(span) if plus else None
    except ValueError:
        raise SpecError([Problem(option, f"{text!r}: {when!r} is not SECONDS[+SECONDS]", fix)]) from None
    needs_node, needs_for = FAULT_KINDS[kind]
    if not math.isfinite(at_s) or at_s < 0 or (for_s is not None and not (math.isfinite(for_s) and for_s > 0)):
        raise SpecError([Problem(option, f"{text!r}: the times must be finite, ≥ 0 (the duration > 0)", fix)])
    if needs_node != bool(node) or needs_for != (for_s is not None):
        raise SpecError([Problem(option, f"{text!r}: a fault of kind {kind} takes "
                                 + ("a node" if needs_node else "no node") + " and "
                                 + ("a duration" if needs_for else "no duration"), fix)])
    return FaultSpec(kind, at_s, node or None, for_s)


def fault_option(spec: FaultSpec) -> str:
    """The setting a fault came from, as errors name it: a worker killed is ``kill``, every other ``fault``."""
    return "kill" if spec.kind == "worker" else "fault"


def fault_actions(spec: FaultSpec, state: ClusterState | None, checkpoint: Path) -> list[Fault]:
    """What the live loop runs for one fault, at its times (a fault with a duration is two actions). A node's fault
    needs ``state``, the cluster `cluster up` started: refused here without it, naming the fault's setting."""
    node = spec.node or ""
    end = spec.at_s + (spec.for_s or 0.0)
    if spec.kind == "stall":
        assert spec.for_s is not None  # a stall has one (parse_fault)
        return [(spec.at_s, f"stall the sources for {spec.for_s:g} s",
                 functools.partial(spark_live.stall, checkpoint, spec.for_s))]
    if state is None:
        raise SpecError([Problem(fault_option(spec), "only a standalone cluster's workers can be killed or faulted",
                                 "start one with `streamplace cluster up` and give [[master]] its URL")])
    if spec.kind == "worker":
        return [(spec.at_s, f"kill {node}", functools.partial(kill_worker, state, node))]
    if spec.kind == "executor":
        return [(spec.at_s, f"kill {node}'s executors",
                 functools.partial(spark_cluster.kill_executors, state, node))]
    if spec.kind == "slow":
        return [(spec.at_s, f"slow {node} to {SLOW_FACTOR:g} of its CPU for {spec.for_s:g} s",
                 functools.partial(spark_cluster.slow_node, state, node, SLOW_FACTOR)),
                (end, f"{node}'s CPU restored", functools.partial(spark_cluster.restore_node, state, node))]
    if spec.kind == "freeze":
        return [(spec.at_s, f"freeze {node} for {spec.for_s:g} s",
                 functools.partial(spark_cluster.freeze_node, state, node)),
                (end, f"{node} thawed", functools.partial(spark_cluster.thaw_node, state, node))]
    raise ValueError(f"no such fault kind: {spec.kind!r}")  # parse_fault admits none other


def prepare_live(t: Topology, c: Cluster, policy: str, plan: Any, scheduler: str, params: dict[str, str],
                 state: ClusterState | None, settings: LiveSettings, *, kills: list[tuple[str, float]] | None = None,
                 faults: list[FaultSpec] | None = None, on_warning: Say = silent) -> tuple[Any, list[Fault]]:
    """The live policy by name, started from ``plan`` (a Plan, a plan file, or None: planned now with
    ``scheduler``; re-placed to fit the nodes' replica slots) at ``settings.interval_s``, and the faults to inject:
    ``kills``, (node, seconds) pairs, each killing that node's worker, and ``faults`` (FaultSpec; a node's only on
    a cluster `cluster up` started; a stall needs ``settings.bounded_sources``; its checkpoint is
    ``settings.out_dir``'s). ``on_warning``: what is said of a plan file (workflows.run.plan_to_run)."""
    # lazy: command-line start (the live policies: highspy, networkx)
    from streamplace.elastic.live_policies import fits_slots, make_policy, place_counts
    from streamplace.model.layout import worker_layout

    workers = state.layout() if state is not None else None
    slots = {w.node: w.replica_slots for w in (workers or worker_layout(c))}
    specs = [FaultSpec("worker", when, node) for node, when in kills or []] + list(faults or [])
    actions: list[Fault] = []
    for spec in specs:
        new = fault_actions(spec, state, settings.out_dir / "_checkpoint")  # refuses a node's fault off a cluster
        if spec.node is not None and spec.node not in slots:
            raise SpecError([Problem(fault_option(spec), f"{spec.node!r} is no node of {c.name}",
                                     f"name one of {', '.join(slots)}")])
        actions += new
    first = None
    if policy != "s-odrp":
        first = plan_to_run(plan, scheduler, t, c, on_warning)
        if not fits_slots(first, slots):
            first = place_counts(t, c, first.counts(), slots)
    return make_policy(policy, t, c, params, slots, first, interval_s=settings.interval_s), actions
