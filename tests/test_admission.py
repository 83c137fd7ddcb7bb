"""Bounded sources: the arrival process, the admission bound per micro-batch and the backlog figures (pure)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.errors import ModelError, SpecError
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.admission import HEADROOM, admission, admitted_plan, continuous
from streamplace.perf.engines import EngineSettings
from streamplace.perf.evaluate import evaluate
from streamplace.spark.query.bounded_source import admitted_end, arrival_origin, arrived, split
from streamplace.spark.query.metrics import BatchProgress, source_backlog
from streamplace.spark.runtime.run import backlog_figures, machine, on_one_node, window_span


def test_rows_arrive_on_the_clock_and_a_batch_admits_at_most_the_cap() -> None:
    # row v arrives at origin + v / rate: row 0 at the origin, rows 0..125 by 2.5 s later
    assert arrived(100.0, 50.0, 99.0) == 0 and arrived(100.0, 50.0, 100.0) == 1
    assert arrived(100.0, 50.0, 102.5) == 126 and arrived(100.0, 50.0, 102.49) == 125
    assert admitted_end(40, 125, 30) == 70  # capped: 55 rows stay in the backlog
    assert admitted_end(40, 60, 30) == 60  # all that arrived
    assert admitted_end(40, 125, None) == 125
    assert admitted_end(40, 10, 30) == 40  # never backwards


def test_a_batch_splits_into_contiguous_even_ranges() -> None:
    parts = split(10, 21, 3)
    assert [(p.start, p.end) for p in parts] == [(10, 13), (13, 17), (17, 21)]
    assert [(p.start, p.end) for p in split(5, 7, 4)] == [(5, 6), (6, 7)]  # empty ranges left out
    assert split(5, 5, 2) == []


def test_the_arrival_origin_survives_a_restart_only_once_the_query_ran(tmp_path: Path) -> None:
    first = arrival_origin(tmp_path)
    (tmp_path / "offsets").mkdir()  # Spark makes it when the query starts, before any offset
    assert arrival_origin(tmp_path) >= first  # no offset yet: a fresh query starts arriving now
    kept = arrival_origin(tmp_path)
    (tmp_path / "offsets" / "0").write_text("v1\n{}\n{\"rows\": 10}\n")
    assert arrival_origin(tmp_path) == kept  # a restarted query keeps its arrivals' origin
    (tmp_path / "streamplace-origin").unlink()  # offsets another source wrote: refused, not read as rows
    with pytest.raises(SpecError, match="give another out_dir"):
        arrival_origin(tmp_path)


def test_backlog_is_latest_minus_end_offset_of_a_bounded_source() -> None:
    bounded = SimpleNamespace(latestOffset=json.dumps({"rows": 900}), endOffset=json.dumps({"rows": 300}))
    assert source_backlog(bounded) == 600
    rate = SimpleNamespace(latestOffset=json.dumps(12), endOffset=json.dumps(12))  # Spark's rate source
    assert source_backlog(rate) is None
    assert source_backlog(SimpleNamespace(latestOffset=None, endOffset=None)) is None


def _chain(rate: float) -> tuple[Topology, Plan]:
    ops = (Operator("s", "source", rate=rate), Operator("a", cost_ms=4.0), Operator("k", "sink", cost_ms=1.0))
    topo = Topology("busy", ops, (Stream("s", "a"), Stream("a", "k")))
    return topo, Plan("manual", "busy", "local", {"s": {"local": 1}, "a": {"local": 2}, "k": {"local": 1}})


def test_overloaded_the_bound_leaves_the_triggers_headroom() -> None:
    topo, plan = _chain(3000.0)  # 6× what 2 cores do at 5 ms of CPU per tuple
    local = machine(2)
    adm = admission(topo, local, plan, EngineSettings())
    assert adm.overloaded and adm.source == "model" and adm.trigger_s == int(adm.trigger_s) >= 1
    eng = continuous(EngineSettings(), adm.trigger_s)
    at_bound = evaluate(topo, local, admitted_plan(topo, plan, adm), engine=eng).engine_detail
    # a batch of the bound's rows fills (1 − HEADROOM) of the trigger, as the trigger's own rule: the backlog fills
    # every batch to the bound, and at the trigger-bound rate each would end on the next tick
    assert at_bound["batch_s"] == pytest.approx((1 - HEADROOM) * adm.trigger_s, rel=0.02)
    assert at_bound["trigger_throughput"] > 1.2 * adm.max_rate  # what a batch filling the trigger would take
    assert adm.rows_per_trigger["s"] == pytest.approx(adm.max_rate * adm.trigger_s, abs=1)
    assert adm.max_rate < 3000.0 / 5
    # the fixed cost takes at most a fifth of an overloaded run's trigger
    assert at_bound["batch_fixed_s"] <= 0.2 * adm.trigger_s + 1e-9


def test_a_pipeline_that_keeps_up_is_only_clipped_and_max_rate_rules_when_given() -> None:
    topo, plan = _chain(100.0)
    local = machine(2)
    adm = admission(topo, local, plan, EngineSettings())
    assert not adm.overloaded and adm.rows_per_trigger["s"] >= 100 * adm.trigger_s
    given = admission(topo, local, plan, EngineSettings(), trigger_s=2.0, max_rate=40.0)
    assert given.source == "max_rate" and given.rows_per_trigger == {"s": 80} and given.overloaded
    assert admitted_plan(topo, plan, given).source_rates == {"s": pytest.approx(40.0)}
    for bad in (0.0, -3.0, float("nan"), float("inf")):
        with pytest.raises(ModelError, match="--max-rate"):
            admission(topo, local, plan, EngineSettings(), max_rate=bad, where="--max-rate")


def test_the_admitted_rate_is_what_whole_rows_let_through() -> None:
    topo, plan = _chain(10.0)
    local = machine(2)
    # 4.49 t/s at a 2 s trigger: 8 whole rows a batch, so 4.0 t/s is admitted and predicted, not 4.49
    given = admission(topo, local, plan, EngineSettings(), trigger_s=2.0, max_rate=4.49)
    assert given.rows_per_trigger == {"s": 8} and given.admitted_scale == pytest.approx(0.4)
    assert admitted_plan(topo, plan, given).source_rates == {"s": pytest.approx(4.0)}
    # a rate the bound covers is never rounded into a backlog: 10.5 t/s at 1 s takes 11 rows, not 10
    covered = admission(topo, local, plan.evolve(source_rates={"s": 10.5}), EngineSettings(), trigger_s=1.0,
                        max_rate=10.5)
    assert covered.rows_per_trigger == {"s": 11} and not covered.overloaded


def test_a_trigger_without_room_for_tuples_is_refused_and_near_capacity_the_run_keeps_up() -> None:
    topo, plan = _chain(100.0)
    local = machine(2)
    fixed = evaluate(topo, local, plan, engine=continuous(EngineSettings(), 1.0)).engine_detail["batch_fixed_s"]
    with pytest.raises(ModelError, match="no room for tuples"):
        admission(topo, local, plan, EngineSettings(), trigger_s=fixed * 0.99)
    # 90 % of capacity: no trigger leaves 20 % headroom, but one keeps up with the whole offered rate
    capacity = evaluate(topo, local, plan, engine=continuous(EngineSettings(), 1.0)).sustainable_scale
    near = plan.evolve(source_rates={"s": 100.0 * capacity * 0.9})
    adm = admission(topo, local, near, EngineSettings())
    assert not adm.overloaded and adm.admitted_scale >= 1.0


def test_sources_share_the_bound_in_proportion_to_their_rates() -> None:
    topo = resolve_topology("diamond-cpu")
    cluster = resolve_cluster("hetero-6")
    from streamplace.schedulers import create

    plan = on_one_node(topo, create("round-robin").plan(topo, cluster))
    adm = admission(topo, machine(2), plan, EngineSettings(), trigger_s=1.0, max_rate=10.0)
    assert sum(adm.rows_per_trigger.values()) == pytest.approx(10, abs=len(topo.sources))


def test_backlog_figures_over_the_window() -> None:
    topo, plan = _chain(500.0)

    def batch(i: int, backlog: int | None) -> BatchProgress:
        return BatchProgress(i, f"2026-11-26T10:00:0{2 * i}.000Z", 100, 0.0, 0.0, {"triggerExecution": 300},
                             [backlog])

    at_open = [batch(0, 1000), batch(1, 1500)]
    at_close = [*at_open, batch(2, 2000), batch(3, 3500)]
    fig = backlog_figures(at_open, at_close, topo, plan)  # batches 1 and 3 planned 4 s apart
    assert fig == {"backlog_rows": 3500.0, "backlog_age_s": 7.0, "backlog_growth_per_s": 500.0}
    assert backlog_figures([], [batch(0, None)], topo, plan) == {}


def test_a_window_owns_its_batches_periods() -> None:
    def batch(i: int, start: str, took_ms: int) -> BatchProgress:
        return BatchProgress(i, start, 1, 0.0, 0.0, {"triggerExecution": took_ms}, [])

    # three 1 s triggers: the window runs from the first start to the last batch's next tick, however long the
    # batches took inside their trigger
    steady = [batch(1, "2026-11-26T10:00:01.000Z", 900), batch(2, "2026-11-26T10:00:02.000Z", 100),
              batch(3, "2026-11-26T10:00:03.000Z", 50)]
    assert window_span(steady, 1.0) == pytest.approx(3.0)
    # the last one overran its trigger: the next starts when it ends
    assert window_span([*steady[:2], batch(3, "2026-11-26T10:00:03.000Z", 2500)], 1.0) == pytest.approx(4.5)
    assert window_span([], 1.0) is None


@pytest.mark.parametrize("rate", [100.0, 3000.0])
def test_the_admission_evaluates_each_trigger_tried_once(rate: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trigger search's evaluation at the trigger it chose is the sustainable scale's input: one evaluation per
    whole second tried, none again (the bound is the same as with the plan evaluated afresh). Overloaded, the search
    tries every second up to its longest and chooses by the fixed cost among them."""
    import streamplace.perf.admission as module

    topo, plan = _chain(rate)
    afresh = admission(topo, machine(2), plan, EngineSettings())
    asked: list[float] = []

    def counted(*args: object, **kwargs: object) -> object:
        asked.append(kwargs["engine"].spark.trigger_s)  # type: ignore[attr-defined]
        return evaluate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "evaluate", counted)
    adm = admission(topo, machine(2), plan, EngineSettings())
    assert adm == afresh
    assert len(asked) == len(set(asked))  # every trigger tried once, the chosen one not again
    assert asked[: int(adm.trigger_s)] == [float(s) for s in range(1, int(adm.trigger_s) + 1)]
