"""A query's micro-batch cost, fitted online from its own batches.

The spark engine's model of a micro-batch (perf/engines/spark.py) is ``B = F + s · D · W``: a fixed cost per
batch and work proportional to the data it carries. A user's query is not a streamplace topology, so its F and W
are not computed from operators: they are fitted from the batches it ran, with the capacity it ran them on:

    B = F + rows · w / C^β

F seconds per batch (offsets, planning, WAL, commit, stage scheduling), w seconds per row on one reference core,
C the executors' capacity in reference cores (Σ cores × speed), and β ∈ (0, 1] how well the query uses more
capacity: doubling C divides the per-row time by 2^β. β is not assumed: it is fitted where the query ran on
two capacities at least ``MIN_SPREAD`` apart with ``MIN_POINTS_PER_CAPACITY`` batches each — and a third
capacity, or rows that vary at one of them, tell β from F (two capacities at one batch size fit every β), and
the fit explains at least ``MIN_BETA_R2`` of the batch times' variance (else their noise chose β) — else it is
the options' prior (``prior_scaling``, 0.8: a scale-up expects less than linear gain) for capacities above the
current one and 1 (linear) below it, so a scale-down is never justified by a gain the query has not shown.

Fitting: for β on a grid of 20 values in (0, 1] (fixed where it cannot be fitted), F and w by least squares on
x = rows / C^β, both kept ≥ 0; points whose residual exceeds ``OUTLIER_MADS`` median absolute deviations (a GC
pause, a slow first task) are dropped once and the fit repeated. Where the batches' x hardly vary (every batch
the same size on the same capacity) F and w cannot be told apart. Where the points carry their tasks' executor
run time (Spark's status store), w is then that time per row — all the work the executors did charged to rows, an
upper bound — and F what is left of the batch (at least the driver's part). The fit goes through the points with
a slope at least the true one: it overstates the capacity that brings batches up to the target from below (a
scale-down errs on the side of capacity) and understates the capacity that brings them down from above (a
scale-up may take a second step — less often than under the rule without task times, whose slope is steeper
still). Measured at the start of a stateful query (batches of 300 rows in 3.0–3.5 s on 8 cores, 18.6
core-seconds of task time each): charging all the jobs' wall time to rows (the rule without task times) asked for
4.9 cores, the task times for 3.6; the query later ran the load on 2. Without task times F is the batches'
measured time outside their Spark jobs (the driver's part) where the points carry it, else the spark engine's
built-in fixed cost per batch — either capped by the fastest batch — and w what is left, and the fit says which.
Where the driver's part is measured it is also F's lower bound in the least squares: the time a batch spends
outside its jobs does not shrink with rows or capacity. O(points × grid).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from streamplace.perf.engines.spark import SparkConstants

#: the smallest ratio between the largest and the smallest capacity the points ran on for β to be fitted
MIN_SPREAD = 1.2
#: the points each of those capacities needs
MIN_POINTS_PER_CAPACITY = 3
#: the smallest coefficient of variation of x = rows / C^β for F and w to be told apart
MIN_X_CV = 0.15
OUTLIER_MADS = 4.0
#: a fitted β stands only where the fit explains at least this share of the batch times' variance
MIN_BETA_R2 = 0.5
#: nor is a residual within this share of the median batch time an outlier
OUTLIER_FLOOR = 0.02
BETA_GRID = np.linspace(0.05, 1.0, 20)


@dataclass(frozen=True)
class Point:
    rows: float
    capacity: float
    batch_s: float
    driver_s: float | None = None  # the batch's time outside its Spark jobs (status store), if measured
    #: Σ the batch's tasks' executor run time in reference core-seconds (status store), if measured
    task_s: float | None = None


@dataclass(frozen=True)
class CostFit:
    """B = fixed_s + rows · row_s / capacity ** exponent, with how well it fits and what it rests on."""

    fixed_s: float
    row_s: float  # seconds per row on one reference core
    exponent: float  # β
    exponent_fitted: bool  # False: the prior (above the reference capacity) and 1 (below)
    prior_exponent: float
    reference_capacity: float  # the capacity of the latest point: the prior's β applies away from it
    points: int
    dropped: int  # outliers left out
    capacities: int  # distinct capacities among the points
    rmse_s: float
    r2: float | None  # None: the batch times hardly vary
    #: where F comes from: "fit" (least squares), "task times" (F and w could not be told apart: w is the
    #: tasks' run time per row, F the rest), "stage times" (the measured driver part: F and w could not be told
    #: apart without task times, or the fit's F fell below it) or "spark engine prior" (neither)
    fixed_from: str = "fit"
    driver_s: float | None = None  # the points' median time outside their Spark jobs, if measured

    @property
    def fixed_from_prior(self) -> bool:
        """F could not be separated from w and no driver part was measured: the spark engine's built-in cost."""
        return self.fixed_from == "spark engine prior"

    def exponent_towards(self, capacity: float) -> float:
        """β for a prediction at ``capacity``: the fitted one, else the prior above the reference and 1 below."""
        if self.exponent_fitted:
            return self.exponent
        return self.prior_exponent if capacity > self.reference_capacity else 1.0

    def row_time_s(self, capacity: float) -> float:
        """Batch seconds per row at ``capacity`` reference cores."""
        if capacity <= 0:
            return math.inf
        reference = self.row_s / self.reference_capacity ** self.exponent
        return reference * (self.reference_capacity / capacity) ** self.exponent_towards(capacity)

    def batch_s(self, rows: float, capacity: float) -> float:
        """Predicted batch time for ``rows`` rows on ``capacity``."""
        return self.fixed_s + rows * self.row_time_s(capacity)

    def capacity_for(self, rows: float, budget_s: float) -> float:
        """The least capacity whose batch of ``rows`` takes at most ``budget_s`` (inf: the fixed cost alone
        exceeds it; 0: no rows)."""
        room = budget_s - self.fixed_s
        if room <= 0:
            return math.inf
        if rows <= 0 or self.row_s <= 0:
            return 0.0
        reference = self.row_s / self.reference_capacity ** self.exponent
        # rows · reference · (C_ref / C)^β ≤ room  ⇔  C ≥ C_ref · (rows · reference / room)^(1/β)
        ratio = rows * reference / room
        # ratio > 1: more capacity than the reference's is needed (the prior's β where β is not fitted)
        beta = self.exponent if self.exponent_fitted else (self.prior_exponent if ratio > 1.0 else 1.0)
        return self.reference_capacity * ratio ** (1.0 / beta)

    def summary(self) -> dict[str, float | int | bool | str | None]:
        return {"fixed_s": round(self.fixed_s, 4), "row_ms_per_core": round(1000 * self.row_s, 5),
                "exponent": round(self.exponent, 3), "exponent_fitted": self.exponent_fitted,
                "points": self.points, "dropped": self.dropped, "capacities": self.capacities,
                "rmse_s": round(self.rmse_s, 4), "r2": None if self.r2 is None else round(self.r2, 3),
                "fixed_from_prior": self.fixed_from_prior, "fixed_from": self.fixed_from,
                "driver_s": None if self.driver_s is None else round(self.driver_s, 4)}


def _least_squares(x: np.ndarray, y: np.ndarray, f_min: float = 0.0) -> tuple[float, float]:
    """F ≥ f_min, w ≥ 0 minimizing Σ (y − F − w x)²."""
    var = float(np.var(x))
    if len(x) >= 2 and var > 0:  # the ordinary least-squares line, in closed form
        w = float(np.mean((x - x.mean()) * (y - y.mean()))) / var
        f = float(y.mean()) - w * float(x.mean())
        if f >= f_min and w >= 0:
            return f, w
    # the optimum of the convex problem lies on a bound: F at its floor (w the slope through it), or w = 0 (F the
    # mean, at least the floor: larger batches were not slower) — the better of the two
    sxx = float(x @ x)
    w0 = max(0.0, float(x @ (y - f_min)) / sxx) if sxx > 0 else 0.0
    f0 = max(f_min, float(y.mean()))
    sse_w = float(((y - f_min - w0 * x) ** 2).sum())
    sse_f = float(((y - f0) ** 2).sum())
    return (f_min, w0) if sse_w <= sse_f else (f0, 0.0)


def _exponent_fittable(rows: np.ndarray, cap: np.ndarray) -> bool:
    """β can be fitted: capacities that each carry a few points, far enough apart (one batch on a new capacity,
    its executors still cold, once gave β = 0.05 and a need of millions of cores), that tell β from F."""
    levels, counts = np.unique(np.round(cap, 6), return_counts=True)
    solid = levels[counts >= MIN_POINTS_PER_CAPACITY]
    return len(solid) >= 2 and float(solid.max() / solid.min()) >= MIN_SPREAD and _beta_identified(rows, cap, solid)


def _beta_identified(rows: np.ndarray, cap: np.ndarray, solid: np.ndarray) -> bool:
    """Whether the points tell β apart from F and w. Two capacities whose batches each carry about the same rows
    give two batch times for three unknowns: every β then fits them exactly, with its own F (measured in a
    simulated step: β = 0.15 and F = 0.14 s fitted batches of F = 2.79 s, β = 1, and asked for thousands of
    cores). β is identified by a third capacity, or by rows that vary at one of the two (that slope fixes F)."""
    if len(solid) >= 3:
        return True
    for level in solid:
        at = rows[np.isclose(cap, level, rtol=1e-6)]
        if float(at.mean()) > 0 and float(at.std()) / float(at.mean()) >= MIN_X_CV:
            return True
    return False


def _fit_beta(rows: np.ndarray, cap: np.ndarray, y: np.ndarray, betas: np.ndarray,
              f_min: float = 0.0) -> tuple[float, float, float]:
    best = (math.inf, 0.0, 0.0, 1.0)
    for beta in betas:
        x = rows / cap ** beta
        f, w = _least_squares(x, y, f_min)
        sse = float(((y - f - w * x) ** 2).sum())
        if sse < best[0] - 1e-12:
            best = (sse, f, w, float(beta))
    return best[1], best[2], best[3]


def fit_cost(points: Sequence[Point], prior_exponent: float, constants: SparkConstants | None = None,
             min_points: int = 2) -> CostFit | None:
    """The cost fit of ``points`` (None: fewer than ``min_points``)."""
    if len(points) < max(2, min_points):
        return None
    rows = np.array([p.rows for p in points], dtype=float)
    cap = np.array([p.capacity for p in points], dtype=float)
    y = np.array([p.batch_s for p in points], dtype=float)
    task = np.array([np.nan if p.task_s is None else p.task_s for p in points], dtype=float)
    keep = cap > 0
    rows, cap, y, task = rows[keep], cap[keep], y[keep], task[keep]
    if len(y) < max(2, min_points):
        return None
    # the driver's part, where most points measured it (a few measured ones say little about the rest)
    measured = [p.driver_s for p in points if p.capacity > 0 and p.driver_s is not None]
    driver = float(np.median(measured)) if len(measured) * 2 >= len(y) else None
    f_min = min(driver, float(y.min())) if driver is not None else 0.0
    reference = float(cap[-1])
    capacities = len(np.unique(np.round(cap, 6)))
    fitted = _exponent_fittable(rows, cap)
    betas = BETA_GRID if fitted else np.array([1.0])  # one capacity: β drops out of x up to a constant factor
    dropped = 0
    f, w, beta = _fit_beta(rows, cap, y, betas, f_min)
    resid = y - f - w * rows / cap ** beta
    mad = float(np.median(np.abs(resid - np.median(resid))))
    # a residual within OUTLIER_FLOOR of the median batch is no outlier, however small the MAD (an exact fit's
    # rounding noise once dropped every point of one capacity and left β to chance)
    bound = max(OUTLIER_MADS * 1.4826 * mad, OUTLIER_FLOOR * float(np.median(y)))
    inliers = np.abs(resid - np.median(resid)) <= bound
    if mad > 0 and int(inliers.sum()) >= max(2, min_points) and not inliers.all():
        dropped = int((~inliers).sum())
        rows, cap, y, task = rows[inliers], cap[inliers], y[inliers], task[inliers]
        # what is left may no longer tell β apart (the outliers were one capacity's points)
        fitted = fitted and _exponent_fittable(rows, cap)
        betas = betas if fitted else np.array([1.0])
        f, w, beta = _fit_beta(rows, cap, y, betas, min(f_min, float(y.min())))
    if fitted and (_r2(y, f + w * rows / cap ** beta) or 0.0) < MIN_BETA_R2:
        # the batch times' noise, not the capacities, decided β (measured: β 0.05 from batches of 3–6 s at one
        # size, R² 0.05, and a need of 0.00 cores): not learned, the prior's and linear β stand
        fitted = False
        f, w, beta = _fit_beta(rows, cap, y, np.array([1.0]), min(f_min, float(y.min())))
    x = rows / cap ** beta
    fixed_from = "stage times" if driver is not None and f_min > 0 and math.isclose(f, f_min) and w > 0 else "fit"
    mean_x = float(x.mean())
    if mean_x <= 0 or float(x.std()) / mean_x < MIN_X_CV:
        timed = (rows > 0) & np.isfinite(task)
        per_row = float(np.median(task[timed] / rows[timed])) if timed.any() else 0.0
        if mean_x > 0 and int(timed.sum()) * 2 >= len(task) and per_row > 0:
            # the tasks' run time per row: an upper bound of w (see the module's docstring), F the rest
            w = per_row
            f = min(max(float(np.median(y - w * x)), driver or 0.0), float(y.min()))
            fixed_from = "task times"
        else:
            if driver is not None:
                f, fixed_from = min(driver, float(y.min())), "stage times"
            else:
                f, fixed_from = min((constants or SparkConstants()).batch_s, float(y.min())), "spark engine prior"
            w = max(0.0, float(((y - f) / np.maximum(x, 1e-12)).mean())) if mean_x > 0 else 0.0
    rmse = float(np.sqrt(((y - f - w * x) ** 2).mean()))
    r2 = _r2(y, f + w * x)
    return CostFit(fixed_s=f, row_s=w, exponent=beta if fitted else 1.0, exponent_fitted=fitted,
                   prior_exponent=prior_exponent, reference_capacity=reference, points=len(y), dropped=dropped,
                   capacities=capacities, rmse_s=rmse, r2=r2, fixed_from=fixed_from, driver_s=driver)


def _r2(y: np.ndarray, predicted: np.ndarray) -> float | None:
    """1 − SSE / SST (None: ``y`` hardly varies)."""
    var = float(((y - y.mean()) ** 2).sum())
    if var <= 1e-12 * max(1.0, float((y ** 2).sum())):
        return None
    return 1.0 - float(((y - predicted) ** 2).sum()) / var
