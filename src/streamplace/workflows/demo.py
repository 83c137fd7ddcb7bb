"""The demo: every scheduler on a built-in heterogeneous instance, then the best plan enacted on that cluster,
emulated on this machine, beside the spark engine's prediction of it, in one HTML report.

This module decides, measures, and starts and stops the cluster; the command line (``streamplace demo``)
prints. The product's job is the default (``on="cluster"``): `cluster up` starts one Spark worker per node of
the cluster on this machine, each under a CPU quota of its share of the machine (where cgroups are writable),
and the best plan runs with every replica pinned to its planned node, at half the rate the model predicts the
plan sustains on the cluster as emulated (``emulated_run_plan``): a load at which batches keep their trigger,
so predicted and measured can be compared. ``on="local"`` is the older check: the plan's replica counts on
local Spark (one node to the model), for machines where a cluster cannot start (spark/measure/check.py).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamplace.errors import Problem, SpecError
from streamplace.files import replace_whole, write_whole
from streamplace.model.cluster import Cluster, scaled_cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import RUNTIME_ENGINE, EngineSettings
from streamplace.perf.evaluate import evaluate
from streamplace.report.compare import ComparisonRow, comparison_legend
from streamplace.report.html import Section, write_report
from streamplace.schedulers import REGISTRY, scheduler_names
from streamplace.spark import enact as spark_enact
from streamplace.spark import measure as spark_measure
from streamplace.workflows.cluster import start, stop
from streamplace.workflows.planning import scheduler_rows
from streamplace.workflows.run import enact_run, measured_beside_predicted, run_engine
from streamplace.workflows.run_settings import SETTLE_MAX_S, SETTLED_ROWS, RunHooks, RunSettings

#: seconds of warm-up before measuring; the sources ramp up over its first half
WARMUP_S = 20.0
#: how close predicted and measured throughput and latency must be for the demo to call them in agreement
AGREEMENT = 0.2
#: the share of what the model predicts the plan sustains on the emulated cluster that the demo's sources offer
EMULATED_LOAD = 0.5


@dataclass(frozen=True)
class SparkRun:
    """The chosen plan's run: the check (spark/measure/check.py), its table rows and what they say."""

    check: Any  # spark.measure.check.LocalCheck (imported lazily: planning needs no PySpark)
    rows: list[tuple[str, str, str, str]]
    verdict: str
    agrees: bool
    section: Section


def compare_all(topology: Topology, cluster: Cluster, profile: Profile | None, engine: EngineSettings | None,
                time_limit_s: float, on_done: Callable[[str], None] | None = None) -> list[ComparisonRow]:
    """Every registered scheduler on the instance, each within ``time_limit_s`` and with its own
    ``comparison_params`` (ODRP/ODP minimizing response time)."""
    params = {name: {"time_limit_s": time_limit_s} | dict(REGISTRY[name].comparison_params)
              for name in scheduler_names()}
    return scheduler_rows(topology, cluster, profile, None, params, on_done=on_done, engine=engine)


def best_row(rows: list[ComparisonRow]) -> ComparisonRow | None:
    """The ``ok`` plan with the highest predicted throughput (its own maximum), None when no plan is ``ok``."""
    ok = [r for r in rows if r.has_values and r.plan is not None and r.plan.status == "ok"]
    return max(ok, key=lambda r: r.value("throughput") or 0.0) if ok else None


def run_best(spark: Any, topology: Topology, plan: Plan, cores: int, seconds: float, out_dir: Path,
             engine: EngineSettings, progress: Callable[[float], None] | None = None) -> SparkRun:
    """Run ``plan``'s pipeline on local Spark (a fresh checkpoint in ``out_dir``) and compare with the model."""
    shutil.rmtree(out_dir, ignore_errors=True)  # this run, not a resumed one
    check = spark_measure.check_plan(spark, topology, plan, cores, seconds, WARMUP_S, out_dir, progress=progress,
                                     engine=engine)
    text, agrees = verdict(check)
    rows = spark_measure.comparison_rows(check)
    return SparkRun(check, rows, text, agrees, _section(topology, plan, check, cores, rows, text, out_dir))


def verdict(check: Any) -> tuple[str, bool]:
    """Whether throughput and latency agree within ``AGREEMENT``, in words, and CPU's caveat (``check``: a
    spark.measure.check.LocalCheck, or anything with the run's ``result``)."""
    compared = spark_enact.comparison(check.result.predicted, check.result.measured)
    got = [(name, spark_enact.ratio(p, m)) for name, p, m in compared if name.startswith(("throughput", "latency"))]
    agrees = all(r is not None and abs(r - 1.0) <= AGREEMENT for _, r in got)
    shown = ", ".join(f"{name.split(',')[0].split(' (')[0]} {r:.2f}×" for name, r in got if r is not None)
    text = (f"measured / predicted: {shown} — " + ("within" if agrees else "NOT within") +
            f" {AGREEMENT:.0%}; CPU: the model counts the stages' task time, the machine's share adds Spark's "
            "driver and JVM threads, so it reads higher")
    return text, agrees


def _section(topology: Topology, plan: Plan, check: Any, cores: int, rows: list[tuple[str, str, str, str]],
             text: str, out_dir: Path) -> Section:
    seconds, warmup = check.result.duration_s, max(WARMUP_S, check.trigger_s)
    par = ", ".join(f"{op.id}×{check.plan.parallelism(op.id)}" for op in topology.operators)
    detail = check.result.predicted.get("engine_detail") or {}
    return Section(
        f"The {plan.scheduler} plan as a real pipeline on local Spark",
        [("quantity", "predicted (spark engine, this machine)", "measured (Spark)", "measured / predicted"), *rows],
        [f"why this plan: it has the highest predicted throughput of the comparison; a plan for {plan.cluster} "
         f"cannot run as placed on this machine, so it runs with its replica counts on local[{cores}], which the "
         "model sees as one node, at half the rate the spark engine predicts the plan sustains here — a load at "
         "which the model's micro-batches keep their trigger, as the measured run should",
         text,
         f"every operator ran its planned number of tasks ({par}), {seconds:.0f} s measured (whole micro-batches) "
         f"after {warmup:g} s of warm-up with the sources ramping up over its first half",
         f"the spark engine model: {detail.get('stages', '?')} stages per micro-batch, fixed time per batch "
         f"{detail.get('batch_fixed_s', float('nan')):.2f} s, trigger {check.trigger_s:g} s; Spark's constants: "
         f"{detail.get('constants', '?')}",
         f"source rates scaled to {100 * check.scale:.2g} % of the spec's so the model expects batches half busy",
         "latency: event time at the source to the sink's processing, including the wait for the second's rows "
         "(Spark's rate source), the wait for the trigger and the batch itself",
         f"sink output (Parquet) and checkpoint: {out_dir}"])


def emulated_run_plan(topology: Topology, cluster: Cluster, plan: Plan, cpu_scale: float | None,
                      engine: EngineSettings) -> tuple[Plan, float]:
    """The plan at the source rates the demo runs it with on the emulated cluster, and their share of the
    spec's: ``EMULATED_LOAD`` of what ``engine`` predicts the plan sustains on the cluster as emulated (every
    node's CPU × ``cpu_scale`` under quotas; the cluster itself without), never above the spec's rates."""
    where = scaled_cluster(cluster, cpu_scale) if cpu_scale else cluster
    rates = {s.id: float(plan.source_rates.get(s.id) or s.rate or 0.0) for s in topology.sources}
    spec_rates = plan.evolve(source_rates=rates)
    factor = min(1.0, EMULATED_LOAD * evaluate(topology, where, spec_rates, None, engine=engine).sustainable_scale)
    return spec_rates.evolve(source_rates={k: v * factor for k, v in rates.items()}), factor


def cluster_section(topology: Topology, cluster: Cluster, plan: Plan, done: Any, factor: float, quotas: str,
                    page: Path | None) -> tuple[Section, str, bool]:
    """The report's part on the plan enacted on the emulated cluster (``done``: workflows.run.RunDone), the verdict
    in words and whether predicted and measured agree."""
    text, agrees = verdict(done)
    compared = spark_enact.comparison(done.result.predicted, done.result.measured)
    rows = [(name, _f(p), _f(m), _f(spark_enact.ratio(p, m))) for name, p, m in compared]
    placed = done.result.placement or {}
    ran = ", ".join(f"{op}: " + ", ".join(f"{node} {int(v['tuples']):,}" for node, v in sorted(nodes.items()))
                    for op, nodes in placed.items())
    notes = [f"the {plan.scheduler} plan has the highest predicted throughput of the comparison; it ran on "
             f"{cluster.name} emulated on this machine — one Spark worker per node, {quotas} — with every replica "
             "pinned to its planned node",
             text,
             f"source rates at {100 * factor:.3g} % of the spec's: {100 * EMULATED_LOAD:.0f} % of what the spark "
             "engine predicts the plan sustains on the cluster as emulated, so its batches keep their trigger",
             f"{done.result.duration_s:.0f} s measured over whole micro-batches, after a warm-up of "
             f"{done.result.measured.get('warmup_s', 0):.0f} s (prolonged, up to {SETTLE_MAX_S:.0f} s more, until the "
             f"rows queued during the start had been processed); {done.here}",
             f"tuples each operator's replicas took in, per node (where its tasks really ran): {ran}" if ran else
             "the tasks did not report their nodes",
             f"the run's page, with its per-batch series and picture: {page}" if page is not None else
             "the run's page was not written"]
    section = Section(f"The {plan.scheduler} plan enacted on {cluster.name} (emulated on this machine)",
                      [("quantity", "predicted (spark engine)", "measured (Spark)", "measured / predicted"), *rows],
                      notes)
    return section, text, agrees


def _f(x: Any) -> str:
    return "—" if not isinstance(x, int | float) else f"{x:,.2f}"


def instance_notes(topology: Topology, cluster: Cluster) -> list[str]:
    return [f"{cluster.name}: {len(cluster)} nodes of types {', '.join(cluster.types)}",
            f"{topology.name}: {len(topology.operators)} operators, {topology.total_replicas()} replicas requested"]


@dataclass(frozen=True)
class ClusterRun:
    """The demo's run on its emulated cluster: the run (workflows.run.RunDone), the plan it ran (sources scaled to
    ``factor`` of the spec's), the cluster's quotas in words, the report's section, the verdict and its JSON."""

    done: Any
    run_plan: Plan
    factor: float
    master_url: str
    section: Any
    verdict: str
    document: dict[str, Any]


def run_on_cluster(t: Topology, c: Cluster, plan: Plan, seconds: float, out_dir: Path, calibration: Path | None,
                   *, session: Any, open_page: Any, progress: Callable[[float, float], None] | None = None,
                   on_info: Callable[[str], None] = lambda _: None, on_warning: Callable[[str], None] = lambda _: None,
                   starting: Callable[[str], AbstractContextManager[Any]] | None = None) -> ClusterRun:
    """``plan`` run on ``c`` emulated here: `cluster up` (state under ``out_dir``), the run pinned as planned with
    its live page (``session(state)`` and ``open_page`` as workflows.run.enact_run takes them), and the cluster
    stopped whatever happens, from the moment `up` starts. ``starting(label)`` wraps the cluster's start (a
    spinner); what the demo says goes to ``on_info`` / ``on_warning``."""
    state_dir = out_dir / "cluster"
    run_out = out_dir / "spark-run"
    shutil.rmtree(run_out, ignore_errors=True)  # this run, not a resumed one
    try:  # from the start of `up`: an interrupt at any point still stops what was started
        label = f"starting {c.name} on this machine: a Spark master and {len(c.nodes)} workers"
        with starting(label) if starting is not None else contextlib.nullcontext():
            state = start(c, state_dir, jvm_archives=False).state
        if state.cpu_scale:
            quotas = (f"each under a CPU quota of its share of {state.cpu_budget_cores:g} real cores (×"
                      f"{state.cpu_scale:.3g} of its spec's cores: " + ", ".join(
                          f"{w.node} {w.cpu_quota_cores:.2f}" for w in state.workers) + ")")
            on_info(f"cluster {c.name} up at {state.master_url}: {quotas}")
        else:
            quotas = "the nodes sharing this machine's cores without quotas"
            on_warning(f"{state.cpu_quota_note or 'no CPU quotas'}: the nodes share this machine's cores without "
                       f"quotas, so the prediction, made for {c.name}'s own cores, will read higher than the run")
        engine = run_engine(RUNTIME_ENGINE, calibration, {}, c)
        run_plan, factor = emulated_run_plan(t, c, plan, state.cpu_scale, engine(None))
        on_info(f"running the {plan.scheduler} plan with every replica on its node, sources at {100 * factor:.3g} % "
                f"of the spec's rates ({EMULATED_LOAD:.0%} of what the model predicts the plan sustains here)")
        settings = RunSettings(duration_s=seconds, warmup_s=WARMUP_S, sink="noop", out_dir=run_out,
                               settle_rows=SETTLED_ROWS, settle_max_s=SETTLE_MAX_S)
        done = enact_run(t, c, run_plan, f"{plan.scheduler} plan", settings, engine, state=state,
                         master=state.master_url,
                         hooks=RunHooks(session=lambda log_to: session(state, log_to), open_page=open_page,
                                        on_warning=on_warning, on_info=on_info, progress=progress))
    finally:
        # the run's application leaves the master first: no executor is started meanwhile
        spark_enact.stop_active_session()
        if (state_dir / "state.json").exists():
            try:
                stopped = stop(state_dir)
                on_info(f"cluster {c.name} stopped ({len(stopped)} processes and groups)")
            except Exception as exc:  # said, without hiding the run's own error
                on_warning(f"stopping {c.name} failed ({exc}): `streamplace cluster down --state-dir {state_dir}`")
    section, text, agrees = cluster_section(t, c, plan, done, factor, quotas, done.page)
    document = {"on": "cluster", "agrees": agrees, "verdict": text,
                "page": None if done.page is None else str(done.page),
                "source_rate_share": factor, "cpu_scale": state.cpu_scale,
                "rows": [{"quantity": n, "predicted": pv, "measured": mv}
                         for n, pv, mv, _ in measured_beside_predicted(done.result.predicted, done.result.measured)]}
    return ClusterRun(done, run_plan, factor, state.master_url, section, text, document)


TARGETS = ("cluster", "local")


@dataclass
class DemoReport:
    """The demo's comparison and its HTML report (``out_dir/report.html``), written whole each time a part is
    added, so the comparison is kept whatever happens to the Spark run after it."""

    topology: Topology
    cluster: Cluster
    engine: EngineSettings
    rows: list[ComparisonRow]
    out_dir: Path
    chart: Path
    pictures: list[Any]
    best: ComparisonRow | None
    sections: list[Any]

    @property
    def title(self) -> str:
        return f"{self.topology.name} on {self.cluster.name} ({self.engine.name} engine)"

    def write(self) -> Path:
        """The report as it stands: table, chart, every plan's picture, the sections added so far."""
        return write_report(self.rows, self.chart, self.out_dir / "report.html", f"streamplace demo: {self.title}",
                            instance_notes(self.topology, self.cluster), self.sections,
                            legend=comparison_legend(self.rows), pictures=self.pictures)


def check_target(on: str) -> None:
    """Refuse a demo target other than ``cluster`` (the emulated cluster) or ``local`` (local Spark)."""
    if on not in TARGETS:
        raise SpecError([Problem("on", f"unknown target {on!r}", "use cluster or local")])


def compare_and_report(topology: Topology, cluster: Cluster, profile: Profile | None, engine: EngineSettings,
                       time_limit_s: float, out_dir: Path,
                       on_done: Callable[[str], None] | None = None) -> DemoReport:
    """Every scheduler on the instance (compare_all), the chart and every plan's picture, the best plan written
    as ``best-plan.json`` and drawn as ``best-plan.svg``, and the report written with them."""
    # lazy: matplotlib
    from streamplace.report.placement import placement_pictures, write_placement
    from streamplace.report.plots import plot_comparison

    rows = compare_all(topology, cluster, profile, engine, time_limit_s, on_done=on_done)
    report = DemoReport(topology, cluster, engine, rows, out_dir, out_dir / "compare.png", [], best_row(rows), [])
    plot_comparison(rows, report.chart, report.title)
    report.pictures = placement_pictures(topology, cluster, profile, engine, rows)
    best = report.best
    if best is not None and best.plan is not None:
        plan = best.plan
        write_whole(out_dir / "best-plan.json", plan.to_json() + "\n")
        ev = evaluate(topology, cluster, plan, profile, engine=engine)
        replace_whole(out_dir / "best-plan.svg", lambda tmp: write_placement(topology, cluster, plan, ev, tmp))
    report.write()
    return report
