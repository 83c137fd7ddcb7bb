"""The autoscaler's fit and decisions on hand-worked cases (autoscaler/: pure, no Spark).

Batches are made from a known cost, B = F + rows · w / C^β, so every expected number below is worked by hand
from F, w and β.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from streamplace.autoscaler.decide import Decision, choose_releases, decide, window_needs
from streamplace.autoscaler.fit import Point, fit_cost
from streamplace.autoscaler.options import AutoscaleOptions, WorkerType, options_from
from streamplace.autoscaler.state import Batch, Change, Executor, Memory, View
from streamplace.errors import ModelError

F, W = 0.5, 0.002  # seconds per batch; seconds per row on one reference core
TRIGGER = 2.0


def cost(rows: float, capacity: float, beta: float = 1.0) -> float:
    return F + rows * W / capacity ** beta


def batches(rows: list[float], capacities: list[float], arrival: float | None = None, beta: float = 1.0,
            start: float = 0.0, backlog: float = 0.0) -> list[Batch]:
    """One batch per TRIGGER seconds; offsets in rows: the batch reads ``rows``, the sources hold ``backlog``
    more; ``arrival`` (rows/s) sets how fast the latest offset grows (default: rows / TRIGGER, no backlog)."""
    out = []
    done = 0.0
    for i, (r, c) in enumerate(zip(rows, capacities, strict=True)):
        at = start + TRIGGER * (i + 1)
        latest = (arrival * at if arrival is not None else done + r) + backlog
        out.append(Batch(at_s=at, batch_id=i, rows=int(r), duration_s=cost(r, c, beta), capacity=c, executors=int(c),
                         started=done, processed=done + r, position=latest))
        done += r
    return out


def executors(n: int, started: float = 0.0, cores: int = 1, host: str = "h") -> tuple[Executor, ...]:
    return tuple(Executor(str(i), f"{host}{i}", cores, started) for i in range(n))


# ---------------------------------------------------------------- the fit

def test_fit_recovers_fixed_cost_and_row_time_on_one_capacity() -> None:
    pts = [Point(r, 2.0, cost(r, 2.0)) for r in (500, 1000, 1500, 2000, 800)]
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and not fit.exponent_fitted
    assert fit.fixed_s == pytest.approx(F, abs=1e-9) and fit.row_s == pytest.approx(W, rel=1e-9)
    assert fit.points == 5 and fit.capacities == 1 and fit.rmse_s == pytest.approx(0, abs=1e-9)
    # up: the prior's β = 0.8. 3000 rows in 1.5 s after F: per-row time at C_ref = 2 is 0.001 s, ratio 2 → C = 2·2^1.25
    assert fit.capacity_for(3000, 2.0) == pytest.approx(2 * 2 ** 1.25)
    # down: linear. 1000 rows: ratio 2/3 → C = 4/3
    assert fit.capacity_for(1000, 2.0) == pytest.approx(4 / 3)
    assert math.isinf(fit.capacity_for(10, 0.4))  # the fixed cost alone is over budget


def test_fit_learns_the_scaling_exponent_from_two_capacities() -> None:
    beta = 0.5
    pts = [Point(r, c, cost(r, c, beta)) for c in (2.0, 4.0) for r in (500, 1000, 2000)]
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and fit.exponent_fitted and fit.exponent == pytest.approx(beta)
    # 3000 rows in 2 s: 3000 · 0.002 / C^0.5 ≤ 1.5 → C ≥ 16
    assert fit.capacity_for(3000, 2.0) == pytest.approx(16.0, rel=1e-6)
    assert fit.batch_s(1000, 16.0) == pytest.approx(0.5 + 1000 * 0.002 / 4)


def test_two_capacities_at_one_batch_size_do_not_fit_the_exponent() -> None:
    # 1000 rows a batch on 2 and then 4 cores: two batch times, three unknowns — every β fits them with its own F
    # (a simulated step once fitted β = 0.15 and F = 0.14 s to F = 2.79 s, β = 1 and asked for 2,975 cores). β
    # stays the prior/linear one, and with β = 1 the two sizes give F and w exactly
    pts = [Point(1000, c, cost(1000, c)) for c in (2.0, 4.0) for _ in range(3)]
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and not fit.exponent_fitted and fit.capacities == 2
    assert fit.fixed_s == pytest.approx(F) and fit.row_s == pytest.approx(W)
    # a third capacity, or rows that vary at one of the two, identify β
    third = pts + [Point(1000, 8.0, cost(1000, 8.0, 1.0))] * 3
    assert (fit3 := fit_cost(third, prior_exponent=0.8)) is not None and fit3.exponent_fitted
    assert fit3.exponent == pytest.approx(1.0)
    varied = [Point(r, 2.0, cost(r, 2.0, 0.5)) for r in (500, 1000, 2000)] + \
        [Point(1000, 4.0, cost(1000, 4.0, 0.5))] * 3
    assert (fit2 := fit_cost(varied, prior_exponent=0.8)) is not None and fit2.exponent_fitted
    assert fit2.exponent == pytest.approx(0.5)


#: the settled batches of a measured walk on the emulated cluster (2026-11-28): rows, capacity, batch seconds and the
#: driver's part — batches of one size took 3–6 s on one capacity, then three ran on 6 cores
MEASURED_WALK = [(1246, 8.0, 8.298, 0.976), (922, 8.0, 6.694, 0.955), (1224, 8.0, 5.972, 0.396),
                 (1460, 8.0, 6.818, 0.891), (1460, 8.0, 7.477, 0.656), (1306, 8.0, 6.88, 0.54),
                 (1070, 8.0, 4.32, 0.351), (1070, 8.0, 3.916, 0.289), (1070, 8.0, 3.712, 0.253),
                 (1070, 8.0, 5.826, 0.655), (1070, 8.0, 5.572, 0.448), (1070, 8.0, 4.379, 0.337),
                 (1070, 8.0, 5.021, 0.487), (1070, 8.0, 3.549, 0.28), (1224, 8.0, 4.827, 0.374),
                 (1460, 8.0, 4.725, 0.414), (1460, 8.0, 4.525, 0.363), (1610, 8.0, 5.07, 0.406),
                 (1840, 8.0, 6.356, 0.423), (1840, 8.0, 5.536, 0.438), (1690, 8.0, 5.444, 0.454),
                 (1460, 8.0, 4.746, 0.376), (1460, 8.0, 3.294, 0.241), (1306, 8.0, 3.781, 0.264),
                 (1070, 8.0, 2.971, 0.187), (1415, 6.0, 4.715, 0.237), (1460, 6.0, 4.837, 0.245),
                 (1460, 6.0, 6.173, 0.452)]


def test_a_beta_the_noise_chose_is_not_learned() -> None:
    # on these batches the grid's best β was 0.05 (R² 0.05): capacity "hardly matters", and the need at the run's
    # 146 rows/s came out 0.00 cores — an executor was released on it. The noise chose that β: it is not
    # learned; the linear and prior β stand, and the need is the load's
    pts = [Point(r, c, b, driver_s=d) for r, c, b, d in MEASURED_WALK]
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and not fit.exponent_fitted and fit.exponent == 1.0
    assert fit.r2 is not None and fit.r2 < 0.5
    assert fit.capacity_for(1460, 7.0) > 2.0


def test_fit_drops_an_outlier_and_says_so() -> None:
    pts = [Point(r, 2.0, cost(r, 2.0)) for r in (500, 700, 900, 1100, 1300, 1500, 1700)]
    pts.append(Point(1000, 2.0, 9.0))  # a GC pause
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and fit.dropped == 1 and fit.row_s == pytest.approx(W, rel=1e-6)


def test_fit_falls_back_to_the_engines_fixed_cost_when_batches_do_not_vary() -> None:
    pts = [Point(1000, 2.0, cost(1000, 2.0))] * 6
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and fit.fixed_from_prior and fit.fixed_s == pytest.approx(0.135)  # SparkConstants.batch_s
    assert fit.batch_s(1000, 2.0) == pytest.approx(cost(1000, 2.0))  # still exact where it was measured
    assert fit_cost(pts[:1], prior_exponent=0.8) is None


def test_the_measured_driver_part_separates_fixed_cost_from_row_time() -> None:
    # every batch the same size on the same capacity: least squares cannot tell F from w. The status store's
    # driver part (0.5 s outside the batch's jobs) gives F; w is what is left: (1.5 − 0.5) · 2 / 1000 = 0.002
    pts = [Point(1000, 2.0, cost(1000, 2.0), driver_s=F)] * 6
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and fit.fixed_from == "stage times" and not fit.fixed_from_prior
    assert fit.fixed_s == pytest.approx(F) and fit.row_s == pytest.approx(W) and fit.driver_s == pytest.approx(F)


def test_task_times_bound_the_row_cost_where_batches_do_not_vary() -> None:
    # every batch 1000 rows on 4 cores in 1.0 s (F = 0.5, w = 0.002); the driver part measured 0.1 s (the rest of
    # F runs in the executors); the tasks ran 2.4 reference core-seconds — 0.4 of them per-task overhead, not rows.
    # w = 2.4 / 1000 = 0.0024 (an upper bound), F = 1.0 − 0.0024 · 1000 / 4 = 0.4
    pts = [Point(1000, 4.0, cost(1000, 4.0), driver_s=0.1, task_s=2.4)] * 6
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and fit.fixed_from == "task times"
    assert fit.fixed_s == pytest.approx(0.4) and fit.row_s == pytest.approx(0.0024)
    assert fit.batch_s(1000, 4.0) == pytest.approx(1.0)  # through the points
    # the capacity for 1000 rows within 0.7 · 2 = 1.4 s: the truth 2 / 0.9 = 2.22 cores ≤ the task times' 2.4 / 1.0
    # = 2.4 < the driver-part rule's (F 0.1, w = 0.9 · 4 / 1000 = 0.0036) 3.6 / 1.3 = 2.77
    without = fit_cost([Point(1000, 4.0, cost(1000, 4.0), driver_s=0.1)] * 6, prior_exponent=0.8)
    assert without is not None and without.fixed_from == "stage times"
    truth = 1000 * W / (1.4 - F)
    assert fit.capacity_for(1000, 1.4) == pytest.approx(2.4)
    assert truth < fit.capacity_for(1000, 1.4) < without.capacity_for(1000, 1.4)
    assert without.capacity_for(1000, 1.4) == pytest.approx(3.6 / 1.3)
    # F never below the driver's part: tasks that claim more than the batch leaves fall back to F = 0.1
    heavy = fit_cost([Point(1000, 4.0, 1.0, driver_s=0.1, task_s=4.0)] * 6, prior_exponent=0.8)
    assert heavy is not None and heavy.fixed_s == pytest.approx(0.1) and heavy.row_s == pytest.approx(0.004)


def test_task_time_is_converted_to_reference_core_seconds() -> None:
    # three cores of speed 2 (capacity 6 reference cores) ran 10 s of tasks: 20 reference core-seconds
    b = Batch(at_s=1.0, batch_id=1, rows=10, duration_s=1.0, capacity=6.0, executors=1, task_s=10.0, cores=3)
    assert b.task_ref_s == pytest.approx(20.0)
    assert dataclasses.replace(b, cores=None).task_ref_s is None


def test_the_driver_part_is_a_floor_for_the_fitted_fixed_cost() -> None:
    # batches whose time is 0.1 s + rows · 0.002 / 2, but 0.3 s of each was measured outside its jobs: F is at
    # least 0.3 s, and w the least-squares slope with F held there: Σx(y − 0.3) / Σx² over x = rows / 2
    rows = [500.0, 1000.0, 1500.0, 2000.0, 800.0]
    pts = [Point(r, 2.0, 0.1 + r * W / 2, driver_s=0.3) for r in rows]
    fit = fit_cost(pts, prior_exponent=0.8)
    x = [r / 2 for r in rows]
    slope = sum(a * (0.1 + a * W - 0.3) for a in x) / sum(a * a for a in x)
    assert fit is not None and fit.fixed_from == "stage times"
    assert fit.fixed_s == pytest.approx(0.3) and fit.row_s == pytest.approx(slope)
    # without the measurement the line is recovered exactly
    free = fit_cost([Point(r, 2.0, 0.1 + r * W / 2) for r in rows], prior_exponent=0.8)
    assert free is not None and free.fixed_from == "fit" and free.fixed_s == pytest.approx(0.1)


def test_larger_batches_that_were_not_slower_fit_no_row_cost_whatever_the_floor() -> None:
    # measured on the emulated cluster: 300-row batches took ~2.5 s, then 1,233 and 3,000 rows took ~2.2 s (the
    # per-task cost dominates). The line through them falls (w < 0): the constrained optimum is w = 0 and F the
    # mean — not F held at the driver's 0.3 s with every second of the rest charged to the rows
    pts = [Point(300, 8.0, 2.5, driver_s=0.3)] * 6 + [Point(1233, 4.0, 2.24, driver_s=0.3),
                                                      Point(3000, 4.0, 2.2, driver_s=0.3)]
    fit = fit_cost(pts, prior_exponent=0.8)
    assert fit is not None and fit.row_s == 0.0 and fit.fixed_from == "fit"
    assert fit.fixed_s == pytest.approx((6 * 2.5 + 2.24 + 2.2) / 8)


# ---------------------------------------------------------------- decisions

def view(bs: list[Batch], exe: tuple[Executor, ...], now: float | None = None, **kw: object) -> View:
    return View(now_s=now if now is not None else bs[-1].at_s, target_batch_s=TRIGGER, batches=tuple(bs),
                executors=exe, **kw)  # type: ignore[arg-type]


OPTS = AutoscaleOptions(warmup_batches=0)
#: batches of several sizes (the fit tells F from w), then 32 s at 1500 rows/s: the last 30 s hold only the step
STEP = [400, 800, 1200, 600, 1000] + [3000] * 16


def test_a_step_up_asks_for_the_capacity_the_fit_predicts() -> None:
    rows = STEP
    bs = batches(rows, [2.0] * len(rows))
    d, memory = decide(view(bs, executors(2)), Memory(), OPTS)
    # arrival 1500 rows/s (offsets); the last batch took 0.5 + 3000·0.002/2 = 3.5 s, 1.5 s over the trigger: 2250
    # rows wait (backlog), drained over catch_up_s 300 s → 1507.5 rows/s, 3015 rows a batch;
    # predicted (0.5 + 3015·0.001) / 2 = 1.7575 > 0.9; need: 3015 rows within 0.7 · 2 = 1.4 s → ratio
    # 3015·0.001/0.9 → C = 2 · (3.015/0.9)^1.25 (prior β 0.8)
    assert d.action == "up" and d.rule == "model"
    assert d.arrival_rows_s == pytest.approx(1500.0) and d.backlog_rows == pytest.approx(2250.0)
    assert d.predicted_utilization == pytest.approx(1.7575)
    need = 2 * (3.015 / 0.9) ** 1.25
    assert d.needed_capacity == pytest.approx(need)
    assert len(d.add) == math.ceil(need - 2) and d.target_executors == 2 + math.ceil(need - 2)
    assert "1.76" in d.reason and "1,500 rows/s" in d.reason and "2,250 rows" in d.reason
    assert memory.last_change is not None and memory.last_change.kind == "up"
    # the same view a second later: stabilizing, nothing more
    d2, _ = decide(view(bs, executors(2), now=bs[-1].at_s + 1), memory, OPTS)
    assert d2.action == "keep" and "stabilizing" in d2.reason


def test_a_rise_is_met_from_the_last_interval_not_the_windows_average() -> None:
    # 500 rows/s for a while, then the last batch read 3 s at 1500 rows/s: the 30 s window averages the two, the
    # last interval holds the rise alone. The decision takes the higher (1500 rows/s), so one scale-up meets the
    # step instead of a first one sized for the average and a second after the stabilization
    rows = [400, 800, 1200, 600, 1000] + [1000] * 14
    bs = batches(rows, [2.0] * len(rows))
    last = bs[-1]
    risen = dataclasses.replace(last, position=last.position + 2000.0)  # 1000 rows + 2 s × 1000 more rows/s
    d, _ = decide(view([*bs[:-1], risen], executors(2)), Memory(), OPTS)
    begun = TRIGGER  # the last two batches started one trigger apart
    assert d.arrival_rows_s == pytest.approx((risen.position - bs[-2].position) / begun)
    assert d.arrival_rows_s > 1000.0 and d.action == "up" and f"{d.arrival_rows_s:,.0f} rows/s" in d.reason
    # a fall is not taken from the last interval: the window's average stays the rate
    fallen = dataclasses.replace(last, position=last.position - 800.0)
    d2, _ = decide(view([*bs[:-1], fallen], executors(2)), Memory(), OPTS)
    assert d2.arrival_rows_s > (fallen.position - bs[-2].position) / begun


def test_a_step_down_inside_a_paid_hour_keeps_the_executors() -> None:
    rows = [100, 200, 150, 120, 180, 100, 100, 100]
    bs = batches(rows, [4.0] * len(rows))
    exe = executors(4)
    first, memory = decide(view(bs, exe), Memory(), OPTS)
    # 50 rows/s: (0.5 + 100 · 0.0005) / 2 = 0.275 < 0.5: a scale-down, first only recommended (the window)
    assert first.action == "keep" and "recommended" in first.reason
    later = batches(rows, [4.0] * len(rows), start=200.0)
    d, memory = decide(view(later, exe), memory, OPTS)
    # 216 s into the executors' first paid hour: none may go
    assert d.action == "keep" and "paid" in d.reason and "3384 s" in d.reason
    # per-minute billing: 216 s is 24 s before a minute ends (within release_horizon_s 30 s): released, keeping
    # min_scale_down_keep 0.4 of the capacity (4 → 1.6 kept: two of the four go; the need, 0.33 cores, is lower:
    # the step floor rules)
    minutes = AutoscaleOptions(warmup_batches=0, worker_types={"default": WorkerType(unit_s=60.0)})
    d, _ = decide(view(later, exe), memory, minutes)
    assert d.action == "down" and len(d.release) == 2 and d.target_capacity == 2.0
    assert any("min_scale_down_keep" in x for x in d.limits)


MINUTES = AutoscaleOptions(warmup_batches=0, worker_types={"default": WorkerType(unit_s=60.0)})


def test_an_executor_spare_at_the_target_goes_although_the_utilization_is_in_the_band() -> None:
    # 1200 rows a batch on 4 cores: (0.5 + 1200 · 0.002 / 4) / 2 = 0.55, inside 0.5–0.9 — the band alone keeps all
    # four. But 1200 rows within 0.7 · 2 = 1.4 s need (1200 · 0.002) / 0.9 = 2.67 cores: one executor is spare
    rows = [400, 800, 1200, 600, 1000] + [1200] * 16
    exe = executors(4)
    first, memory = decide(view(batches(rows, [4.0] * len(rows)), exe), Memory(), MINUTES)
    assert first.action == "keep" and first.predicted_utilization == pytest.approx(0.55)
    assert "spare" in first.reason and "recommended" in first.reason
    assert memory.down_needs[0][1] == pytest.approx(1200 * 0.002 / 0.9)
    # at 276 s (past the 180 s window, 24 s before a paid minute ends): one goes, and only one — three keep 2.67
    # cores, two would not
    later = batches(rows, [4.0] * len(rows), start=234.0)
    d, _ = decide(view(later, exe), memory, MINUTES)
    assert d.action == "down" and len(d.release) == 1 and d.target_capacity == 3.0


def test_a_scale_down_is_sized_by_the_last_interval_not_the_windows_average() -> None:
    # 600 rows/s for 30 s, then the last batch read 200 rows: the window's average still says ~560 rows/s. The last
    # interval: batches end 2 s apart and the last, 0.5 s shorter (0.6 s against 1.1 s), started 2.5 s after the
    # one before → 200 / 2.5 = 80 rows/s, 160 rows a batch within 1.4 s → (160 · 0.002) / 0.9 = 0.36 cores
    rows = [400, 800, 1200, 600, 1000] + [1200] * 15 + [200]
    d, memory = decide(view(batches(rows, [4.0] * len(rows)), executors(4)), Memory(), MINUTES)
    assert d.action == "keep" and "80 rows/s (the last interval)" in d.reason
    assert memory.down_needs[0][1] == pytest.approx(160 * 0.002 / 0.9)
    assert d.arrival_rows_s is not None and d.arrival_rows_s > 500  # the decision's rate (up) is the window's


def test_a_scale_down_is_sized_by_its_last_window_not_by_when_it_began() -> None:
    # 100 rows/s (200 rows a batch) on 4 cores: utilization (0.5 + 200 · 0.002 / 4) / 2 = 0.30, the need 0.4 /
    # 0.9 = 0.44 cores. The scale-down was first recommended 20 s ago, when the load was still falling and 3.5 cores
    # were needed. With a 10 s window that need is past: the step floor rules (0.4 · 4 = 1.6 cores kept), two of
    # four go. Held inside the window, 3.5 cores keep all four (three give 3)
    rows = [400, 800, 1200, 600, 1000] + [200] * 16
    bs = batches(rows, [4.0] * len(rows))
    now = bs[-1].at_s
    opts = AutoscaleOptions(warmup_batches=0, scale_down_window_s=10.0,
                            worker_types={"default": WorkerType(unit_s=1.0)})
    old = Memory(down_since_s=now - 20.0, down_needs=((now - 15.0, 3.5),))
    d, memory = decide(view(bs, executors(4)), old, opts)
    assert d.action == "down" and len(d.release) == 2 and d.target_capacity == 2.0
    assert "highest need is 0.44" in d.reason and memory.down_needs == ()
    recent = Memory(down_since_s=now - 20.0, down_needs=((now - 5.0, 3.5),))
    d, memory = decide(view(bs, executors(4)), recent, opts)
    assert d.action == "keep" and "3.50 reference cores are needed" in d.reason
    assert [n for _, n in memory.down_needs] == pytest.approx([3.5, 0.4 / 0.9])


def test_the_windows_needs_keep_only_what_can_still_be_highest() -> None:
    needs = window_needs((), 0.0, 5.0, 10.0)
    needs = window_needs(needs, 2.0, 3.0, 10.0)
    needs = window_needs(needs, 4.0, 4.0, 10.0)  # outlives 3.0, which can no longer be the highest
    assert needs == ((0.0, 5.0), (4.0, 4.0))
    assert window_needs(needs, 12.0, 1.0, 10.0) == ((4.0, 4.0), (12.0, 1.0))  # 5.0 (at 0 s) left the window
    assert window_needs(needs, 12.0, 6.0, 10.0) == ((12.0, 6.0),)


def test_no_executor_is_spare_by_a_fit_that_charges_nothing_to_rows() -> None:
    # batches that were not slower for more rows fit w = 0: the need is then 0 cores whatever the load — no ground
    # for calling an executor spare. Inside the band nothing is recommended
    rows = [400, 800, 1200, 600, 1000] + [1200] * 16
    bs = [dataclasses.replace(b, duration_s=1.1) for b in batches(rows, [4.0] * len(rows))]
    d, memory = decide(view(bs, executors(4)), Memory(), MINUTES)
    assert d.fit is not None and d.fit["row_ms_per_core"] == 0.0
    assert d.action == "keep" and "within" in d.reason and memory.down_since_s is None


def test_an_executor_near_its_units_end_goes_with_one_at_it() -> None:
    # hourly billing: the window is the last 5 % (180 s). At 3500 s, h0 (started at 0) has 100 s paid left: due;
    # h1 (started at 200) has 300 s: not due, but within two windows (360 s) — it goes in the same action rather
    # than in a second one (each release costs a state reload: one missed batch each, measured); h2 (1100 s
    # left) stays. The floor allows two to go
    exe = (Executor("0", "h0", 1, 0.0), Executor("1", "h1", 1, 200.0), Executor("2", "h2", 1, 1000.0),
           Executor("3", "h3", 1, 1000.0))
    v = View(now_s=3500.0, target_batch_s=TRIGGER, batches=(), executors=exe)
    assert choose_releases(v, AutoscaleOptions(), floor=2.0) == ("0", "1")
    # with none due, a near one does not go alone
    v_early = View(now_s=3300.0, target_batch_s=TRIGGER, batches=(), executors=exe)
    assert choose_releases(v_early, AutoscaleOptions(), floor=2.0) == ()


def test_no_scale_down_while_a_backlog_drains() -> None:
    rows = [100, 200, 150, 120, 180, 100, 100, 100]
    bs = batches(rows, [4.0] * len(rows), backlog=2000.0)
    d, memory = decide(view(bs, executors(4)), Memory(), OPTS)
    # 50 rows/s + 2000 / 300 s = 56.7 rows/s: 113 rows a batch, still low utilization, but the backlog is 2000 rows
    assert d.action == "keep" and "draining" in d.reason and d.backlog_rows == pytest.approx(2000.0)
    assert memory.down_since_s is None


def test_a_backlog_to_catch_up_scales_up() -> None:
    rows = [400, 800, 1200, 600, 1000] + [1000] * 16
    bs = batches(rows, [2.0] * len(rows), backlog=150_000.0)
    d, _ = decide(view(bs, executors(2)), Memory(), OPTS)
    # 500 rows/s + 150,000 / 300 = 1000 rows/s: 2000 rows a batch, (0.5 + 2000 · 0.001) / 2 = 1.25 > 0.9
    assert d.action == "up" and d.predicted_utilization == pytest.approx(1.25) and "backlog" in d.reason


def test_an_ineffective_scale_up_is_not_repeated() -> None:
    # the query ran at 2 cores, scaled to 4, and its per-row time did not move (a bottleneck elsewhere)
    before = batches([400, 800, 1200, 600, 1000, 3000], [2.0] * 6)
    after = [Batch(at_s=20.0 + 2 * i, batch_id=6 + i, rows=3000, duration_s=cost(3000, 2.0), capacity=4.0,
                   executors=4, started=8000.0 + 3000 * i, processed=11000.0 + 3000 * i,
                   position=11000.0 + 3000 * i) for i in range(4)]
    memory = Memory(changes=(Change(12.0, "up", 2.0, 4.0, row_cost_before=0.001, row_cost_expected=0.0005),))
    exe = executors(4)
    d, memory = decide(view(before + after, exe, now=120.0), memory, OPTS)
    assert memory.blocked_until_s == pytest.approx(120.0 + 1800.0)
    assert any("ineffective" in x for x in d.limits)
    assert d.action == "keep" and "ineffective" in d.reason


def test_stabilization_runs_from_when_the_added_executors_registered() -> None:
    # a scale-up decided 100 s ago (stabilization_s 60 s has passed since), but its executor registered 10 s ago:
    # the batches since were run while it was starting and loading state — not the new capacity's. Held 50 s more
    bs = batches(STEP, [2.0] * len(STEP))
    now = bs[-1].at_s
    memory = Memory(changes=(Change(now - 100.0, "up", 1.0, 2.0),))
    late = (Executor("0", "h0", 1, now - 200.0), Executor("1", "h1", 1, now - 10.0))
    d, _ = decide(view(bs, late), memory, OPTS)
    assert d.action == "keep" and "the last change took effect 10 s ago" in d.reason
    # registered at the decision's time (or before): the stabilization counts from the decision, and has passed
    early = (Executor("0", "h0", 1, now - 200.0), Executor("1", "h1", 1, now - 100.0))
    d, _ = decide(view(bs, early), memory, OPTS)
    assert d.action == "up"


def test_changes_per_hour_are_capped() -> None:
    rows = STEP
    bs = batches(rows, [2.0] * len(rows))
    busy = Memory(changes=tuple(Change(float(t), "up", 2.0, 2.0) for t in range(-1000, -400, 50)))
    d, _ = decide(view(bs, executors(2, started=-2000.0)), busy, OPTS)
    assert d.action == "keep" and "12 changes in the last hour" in d.reason


def test_the_cheapest_capacity_is_added_and_the_dearest_released() -> None:
    kinds = {"default": WorkerType(), "fast": WorkerType(speed=2.0, price=1.5), "slow": WorkerType(speed=0.5,
                                                                                                   price=0.9)}
    opts = AutoscaleOptions(warmup_batches=0, worker_types=kinds, executor_types={"f0": "fast", "s0": "slow"})
    rows = STEP
    bs = batches(rows, [2.0] * len(rows))
    d, _ = decide(view(bs, executors(2), available={"fast": 5, "slow": 5, "default": 5}), Memory(), opts)
    # price per reference core: fast 0.75, default 1, slow 1.8 → fast executors first
    assert d.action == "up" and set(d.add) == {"fast"}
    exe = (Executor("a", "f0", 1, 0.0, "fast"), Executor("b", "s0", 1, 0.0, "slow"), Executor("c", "d0", 1, 0.0),
           Executor("d", "d1", 1, 0.0))
    quiet = batches([100, 200, 150, 120, 180, 100, 100, 100], [4.5] * 8, start=3540.0)
    opts2 = AutoscaleOptions(warmup_batches=0, worker_types=kinds, executor_types={"f0": "fast", "s0": "slow"},
                             scale_down_window_s=0.0)
    d, _ = decide(view(quiet, exe), Memory(), opts2)
    assert d.action == "down" and d.release[0] == "b"  # the slow one: 1.8 per reference core


def test_too_few_points_use_the_fallback_rule_and_never_scale_down() -> None:
    bs = batches([3000, 3000, 3000], [2.0] * 3)
    d, _ = decide(view(bs, executors(2)), Memory(), AutoscaleOptions(warmup_batches=0, min_points=5))
    # utilization (0.5 + 3000 · 0.002 / 2) / 2 = 1.75 > 0.9: up to 2 · 1.75 / 0.7 = 5 cores
    assert d.rule == "fallback" and d.action == "up" and d.target_capacity == 5.0
    assert "fallback" in d.reason
    quiet = batches([10, 10, 10], [2.0] * 3)
    d, _ = decide(view(quiet, executors(2)), Memory(), AutoscaleOptions(warmup_batches=0, min_points=5))
    assert d.action == "keep" and "no scale-down before the fit" in d.reason


def test_the_first_batches_are_not_read_as_load() -> None:
    bs = batches([3000, 3000], [2.0] * 2)
    d, _ = decide(view(bs, executors(2)), Memory(), AutoscaleOptions())
    assert d.action == "keep" and "warming up" in d.reason


def test_a_stateful_querys_partitions_limit_the_need_and_say_so() -> None:
    rows = STEP
    bs = [Batch(**{**b.__dict__, "state_partitions": 4}) for b in batches(rows, [2.0] * len(rows))]
    d, _ = decide(view(bs, executors(2)), Memory(), OPTS)
    assert d.action == "up" and d.target_capacity == 4.0
    assert any("4 shuffle partitions" in x for x in d.limits) and any("state stores" in x for x in d.limits)


def test_the_heaviest_stages_tasks_limit_the_need_and_say_so() -> None:
    # the step asks for more than 3 cores (see the test above: 4 is what 4 partitions allow); a heaviest stage of 3
    # tasks caps it at 3 reference cores, and the decision says why
    rows = STEP
    bs = [Batch(**{**b.__dict__, "heaviest_tasks": 3, "jobs_s": b.duration_s - F, "task_s": b.rows * W})
          for b in batches(rows, [2.0] * len(rows))]
    d, _ = decide(view(bs, executors(2)), Memory(), OPTS)
    assert d.action == "up" and d.target_capacity == 3.0
    assert any("heaviest stage ran at most 3 tasks" in x for x in d.limits)
    assert d.fit is not None and d.fit["driver_s"] == pytest.approx(F)


def test_recommend_only_decides_the_same() -> None:
    rows = STEP
    bs = batches(rows, [2.0] * len(rows))
    acted, _ = decide(view(bs, executors(2)), Memory(), OPTS)
    told, _ = decide(view(bs, executors(2), can_act=False), Memory(), OPTS)
    assert told.recommend_only and not acted.recommend_only
    assert (told.action, told.add, told.target_capacity) == (acted.action, acted.add, acted.target_capacity)
    assert isinstance(told.to_dict()["add"], list)


# ---------------------------------------------------------------- refused options

@pytest.mark.parametrize(("values", "field"), [
    ({"target_utilization": 1.5}, "autoscale.target_utilization"),
    ({"catch_up_s": 0}, "autoscale.catch_up_s"),
    ({"max_changes_per_hour": 2.5}, "autoscale.max_changes_per_hour"),
    ({"min_executors": 3, "max_executors": 2}, "autoscale.max_executors"),
    ({"target_utilization": 0.9, "utilization_band": 0.3}, "autoscale.utilization_band"),
    ({"worker_types": {"big": {"speed": -1}}}, "autoscale.worker_types.big.speed"),
    ({"executor_types": {"10.0.0.1": "huge"}}, "autoscale.executor_types.10.0.0.1"),
    ({"cooldown": 3}, "autoscale.cooldown"),
])
def test_bad_options_are_refused_naming_the_field(values: dict[str, object], field: str) -> None:
    with pytest.raises(ModelError) as err:
        options_from(values)
    assert field in str(err.value) and "fix:" in str(err.value)


def test_good_options_are_kept() -> None:
    opts = options_from({"target_utilization": 0.6, "worker_types": {"fast": {"speed": 2.0, "price": 3.0}},
                         "executor_types": {"10.0.0.2": "fast"}})
    assert opts.type_of("10.0.0.2").speed == 2.0 and opts.type_of("10.0.0.9").speed == 1.0
    assert isinstance(decide, object) and Decision.__name__ == "Decision"


def test_two_executors_can_become_one_although_a_step_keeps_sixty_percent() -> None:
    # 2 executors of 2 cores; 50 rows/s needs (100 rows · 0.001 s) within 1.4 − 0.5 s: 0.22 reference cores at most.
    # A 40 % cut of 4 cores keeps 2.4, more than one executor's 2: one may still go (measured on the emulated
    # cluster: without this rule two executors never became one)
    rows = [100, 200, 150, 120, 180, 100, 100, 100]
    quiet = batches(rows, [4.0] * len(rows))
    per_second = AutoscaleOptions(warmup_batches=0, scale_down_window_s=0.0, min_scale_down_keep=0.6,
                                  worker_types={"default": WorkerType(unit_s=1.0)})
    d, _ = decide(view(quiet, executors(2, cores=2)), Memory(), per_second)
    assert d.action == "down" and len(d.release) == 1 and d.target_capacity == 2.0
    one = AutoscaleOptions(warmup_batches=0, scale_down_window_s=0.0, min_executors=2, min_scale_down_keep=0.6,
                           worker_types={"default": WorkerType(unit_s=1.0)})
    d, _ = decide(view(quiet, executors(2, cores=2)), Memory(), one)
    assert d.action == "keep" and "min_executors 2" in d.reason
