"""A thin, vectorized builder for mixed-integer linear programs solved by HiGHS (highspy).

Schedulers describe variables and sparse rows; the builder passes one
``HighsLp`` to HiGHS at once (no per-row Python calls into the solver) and
returns the solver's status, the incumbent, its objective, the dual bound and
the relative gap.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import highspy
import numpy as np

INF = highspy.kHighsInf


def _new_solver():
    """A HiGHS instance without the Python wrapper's callback set-up: ``highspy.Highs()`` enables callbacks in
    its constructor, before any option can be set, and that prints HiGHS's banner to stdout on every first solve
    of a process (HiGHS issue #2749). Falls back to the wrapper where a later highspy moves the core class."""
    core = getattr(getattr(highspy, "_core", None), "_Highs", None)
    return core() if core is not None else highspy.Highs()


@dataclass
class MilpResult:
    status: str  # "optimal" | "timeout" | "infeasible" | "unbounded" | "error"
    solver_status: str
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    nodes: int = 0  # branch-and-bound nodes HiGHS explored: the solve's work, the same on any machine


class BuildInterrupted(Exception):
    """Building the model ran past its deadline or its size bound; ``reason`` says which, in a sentence."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Milp:
    """Columns and rows of a MILP; ``maximize`` picks the objective sense.

    ``deadline`` (an object with ``expired()``) and ``max_nonzeros`` bound the building itself: every 1,024
    rows ``row`` checks both and raises :class:`BuildInterrupted`, so a model too large for the time limit
    or for memory (HiGHS holds ~100 bytes per nonzero and more in its presolve) is never finished."""

    maximize: bool = True
    deadline: Any = None
    max_nonzeros: int | None = None
    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    cost: list[float] = field(default_factory=list)
    integer: list[bool] = field(default_factory=list)
    rows_lo: list[float] = field(default_factory=list)
    rows_hi: list[float] = field(default_factory=list)
    starts: list[int] = field(default_factory=lambda: [0])
    index: list[int] = field(default_factory=list)
    value: list[float] = field(default_factory=list)

    def var(self, lb: float = 0.0, ub: float = INF, cost: float = 0.0, integer: bool = False) -> int:
        self.lower.append(lb)
        self.upper.append(ub)
        self.cost.append(cost)
        self.integer.append(integer)
        return len(self.lower) - 1

    def binary(self, cost: float = 0.0) -> int:
        return self.var(0.0, 1.0, cost, True)

    def cost_add(self, terms: list[tuple[int, float]], factor: float) -> None:
        """Add factor·coefficient to the objective cost of each (column, coefficient)."""
        if factor:
            for j, v in terms:
                self.cost[j] += factor * v

    def row(self, coefs: dict[int, float] | list[tuple[int, float]], lo: float = -INF, hi: float = INF) -> None:
        items = coefs.items() if isinstance(coefs, dict) else coefs
        merged: dict[int, float] = {}
        for j, v in items:
            merged[j] = merged.get(j, 0.0) + v
        for j, v in merged.items():
            if v != 0.0:
                self.index.append(j)
                self.value.append(v)
        self.starts.append(len(self.index))
        self.rows_lo.append(lo)
        self.rows_hi.append(hi)
        if len(self.starts) & 1023 == 0:
            self._check_budget()

    def _check_budget(self) -> None:
        if self.deadline is not None and self.deadline.expired():
            raise BuildInterrupted(f"the time limit ran out while building the model ({self.n_rows:,} rows, "
                                   f"{len(self.index):,} nonzeros so far)")
        if self.max_nonzeros is not None and len(self.index) > self.max_nonzeros:
            raise BuildInterrupted(f"the model passed {self.max_nonzeros:,} nonzeros ({self.n_rows:,} rows so far), "
                                   "more than HiGHS can take within the memory bound")

    @property
    def n_vars(self) -> int:
        return len(self.lower)

    @property
    def n_rows(self) -> int:
        return len(self.rows_lo)

    def solve(self, time_limit_s: float | None = None, mip_rel_gap: float = 1e-6, threads: int | None = None,
              start: np.ndarray | None = None, options: dict[str, bool | int | float | str] | None = None
              ) -> MilpResult:
        """Solve with HiGHS; ``options`` are passed through verbatim (HiGHS option names)."""
        lp = highs_lp(self.cost, self.lower, self.upper, self.rows_lo, self.rows_hi, self.starts, self.index,
                      self.value, self.maximize)
        if any(self.integer):
            lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                               for i in self.integer]
        result = run_highs(lp, time_limit_s, mip_rel_gap, threads, start, options)
        if result.x is not None and not np.isfinite(result.x).all():
            # seen once in CI (a 2-operator instance of test_throughput_schedulers, not reproducible): a "feasible"
            # solution with NaN columns; solve again without presolve rather than read NaN as a replica count
            if (options or {}).get("presolve") != "off":
                retry = self.solve(time_limit_s, mip_rel_gap, threads, start, {**(options or {}), "presolve": "off"})
                return replace(retry, seconds=retry.seconds + result.seconds, nodes=retry.nodes + result.nodes)
            result = replace(result, status="error", x=None, objective=None, gap=None)
        return result


def solve_lp(cost: np.ndarray, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, row_lower: np.ndarray,
             row_upper: np.ndarray, col_lower: np.ndarray, col_upper: np.ndarray, maximize: bool = False) -> MilpResult:
    """A linear program given as coordinate triplets (duplicates summed), solved by HiGHS's simplex: what
    ``scipy.optimize.linprog(method="highs")`` does, without the 0.3–0.5 s of importing scipy.optimize."""
    n_rows = len(row_lower)
    order = np.lexsort((cols, rows))
    rows, cols, values = rows[order], cols[order], values[order]
    keep = np.r_[True, (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])]
    group = np.cumsum(keep) - 1
    values = np.bincount(group, weights=values)
    rows, cols = rows[keep], cols[keep]
    starts = np.r_[0, np.cumsum(np.bincount(rows, minlength=n_rows))]
    lp = highs_lp(cost, col_lower, col_upper, row_lower, row_upper, starts, cols, values, maximize)
    return run_highs(lp, None, 1e-6, None, None, None)


def highs_lp(cost: Any, col_lower: Any, col_upper: Any, row_lower: Any, row_upper: Any, starts: Any, index: Any,
             values: Any, maximize: bool) -> Any:
    """A ``highspy.HighsLp`` from columns (cost, bounds), row bounds and a row-wise sparse matrix (``starts``
    of each row into ``index``/``values``): one place that fills HiGHS's model for the MILP builder and the LP."""
    lp = highspy.HighsLp()
    lp.num_col_ = len(cost)
    lp.num_row_ = len(row_lower)
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.asarray(col_lower, dtype=float)
    lp.col_upper_ = np.asarray(col_upper, dtype=float)
    lp.row_lower_ = np.asarray(row_lower, dtype=float)
    lp.row_upper_ = np.asarray(row_upper, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.asarray(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.asarray(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.asarray(values, dtype=float)
    lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    return lp


def run_highs(lp: Any, time_limit_s: float | None, mip_rel_gap: float, threads: int | None,
              start: np.ndarray | None, options: dict[str, bool | int | float | str] | None) -> MilpResult:
    """Pass ``lp`` (a ``highspy.HighsLp``) to a fresh HiGHS, solve it, and read back status, solution and work."""
    h = _new_solver()
    h.setOptionValue("output_flag", False)
    if time_limit_s is not None:
        h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    for key, value in (options or {}).items():
        if h.setOptionValue(key, value) != highspy.HighsStatus.kOk:
            raise ValueError(f"HiGHS rejected option {key}={value!r}")
    h.passModel(lp)
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = list(map(float, start))
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    status = h.getModelStatus()
    name = h.modelStatusToString(status)
    info = h.getInfo()
    seconds = float(h.getRunTime())
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value, dtype=float) if has_solution else None
    objective = float(info.objective_function_value) if has_solution else None
    bound = float(info.mip_dual_bound) if np.isfinite(info.mip_dual_bound) else None
    gap = float(info.mip_gap) if has_solution and np.isfinite(info.mip_gap) else None
    if status == highspy.HighsModelStatus.kOptimal:
        kind = "optimal"
    elif status == highspy.HighsModelStatus.kInfeasible:
        kind = "infeasible"
    elif status in (highspy.HighsModelStatus.kUnbounded, highspy.HighsModelStatus.kUnboundedOrInfeasible):
        kind = "unbounded"
    elif status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt,
                    highspy.HighsModelStatus.kIterationLimit, highspy.HighsModelStatus.kSolutionLimit):
        kind = "timeout"
    else:
        kind = "error"
    nodes = int(getattr(info, "mip_node_count", 0) or 0)
    return MilpResult(kind, name, x, objective, bound, gap, seconds, max(nodes, 0))

