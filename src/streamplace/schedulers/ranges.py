"""The range of every numeric scheduler parameter, in one table: out of range is refused, never computed with.

A parameter name means the same in every scheduler that has it (``max_replicas``, ``seed``, ``budget_s``, …),
so the table is keyed by name; ``OVERRIDES`` narrows one scheduler's where its algorithm needs it (``optimal``
builds a MILP whose size grows with ``max_replicas``). ``BaseScheduler.__post_init__`` checks every field
against it, and NaN or infinity anywhere. Upper bounds are set where a larger value would only make a command
run without end (a billion ants, a million replicas per operator in a MILP), not to second-guess a choice.
"""

from __future__ import annotations

import math

from streamplace.ranges import Range


def _int(lo: int, hi: int) -> Range:
    return Range(lo, hi, integer=True)


RANGES: dict[str, Range] = {
    "time_limit_s": Range(0.0, 1e6, lo_open=True),
    "max_replicas": _int(1, 10_000),
    "tasks_per_node": _int(1, 1_000_000),
    "seed": _int(0, 2**32 - 1),
    "mip_rel_gap": Range(0.0, 1.0),
    "target_gap": Range(0.0, 1.0),
    # latency-aware placement (Ecker et al. 2025)
    "budget_s": Range(0.0, 1e5, lo_open=True),
    "utilization_limit": Range(0.0, 1.0, lo_open=True),
    "measured_share": Range(0.0, 1.0, lo_open=True),
    "jitter": Range(0.0, 10.0),
    "ants": _int(1, 10_000),
    "iterations": _int(1, 10_000_000),
    "min_iterations": _int(0, 10_000_000),
    "patience": _int(1, 10_000_000),
    "alpha": Range(0.0, 100.0),
    "beta": Range(0.0, 100.0),
    "rho": Range(0.0, 1.0),
    "q": Range(0.0, 1e12, lo_open=True),
    "initial_pheromone": Range(0.0, 1e12, lo_open=True),
    "minimum_pheromone": Range(0.0, 1e12),
    "reinforce": _int(0, 10_000_000),
    # hetero (Nasiri et al. 2023)
    "initial_scale": Range(0.0, 1.0, lo_open=True),
    "max_divisor": _int(1, 2**30),
    "max_iterations": _int(1, 100_000_000),
    "polish_s": Range(0.0, 1e5),
    "multi_add": _int(0, 10_000),
    # max-throughput
    "chains": _int(1, 10_000),
    "rounds": _int(0, 10_000_000),
    "exact_solves": _int(0, 1_000),
    "exact_nodes": _int(1, 1_000_000_000),
    "exact_radius": _int(0, 1_000_000),
    "uniform_plans": _int(0, 10_000),
    "lp_node_columns": _int(0, 10**12),  # 0: the LP by class of node always
    # ds2
    "target_scale": Range(0.0, 1e6, lo_open=True),
    "target_utilization": Range(0.0, 1.0, lo_open=True),
    # the rest
    "padding_percent": Range(0.0, 1000.0),
    "max_candidates": _int(1, 10**12),
    "max_nodes": _int(1, 10**12),
    "max_evaluations": _int(1, 10**12),
    "executors_per_slot": _int(1, 1_000_000),
    "max_nonzeros": _int(1, 10**10),
    "workers": _int(1, 1_000_000),
    # Storm's own schedulers (storm-even, storm-ras)
    "ackers": _int(0, 1_000_000),
    "worker_heap_mb": Range(0.0, 1e9, lo_open=True),
    "cpu_percent": Range(0.0, 1e9),
    "onheap_mb": Range(0.0, 1e9, lo_open=True),
}

#: where one scheduler's algorithm needs a narrower range than the name's
OVERRIDES: dict[tuple[str, str], Range] = {
    ("optimal", "max_replicas"): _int(1, 1_000),  # its MILP has O(ops · k · nodes) columns
    ("exhaustive", "max_replicas"): _int(1, 100),  # max_candidates bounds the rest
    ("odrp", "max_replicas"): _int(1, 1_000),
    ("odp", "max_replicas"): _int(1, 1),  # ODP places one replica per operator
}

#: the range of every value of a mapping parameter (``weights.cpu=…``, ``measured_rates.parser=…``); ODRP's
#: ``bounds`` are checked against each other by ODRP itself (perf/odrp.py)
MAPPING_VALUES: dict[str, Range] = {
    "weights": Range(0.0, 1e12),
    "true_rates": Range(0.0, 1e12),
    "measured_rates": Range(0.0, 1e12),
}  # ODRP's fixed ``counts`` are checked by ODRP against each operator's own k


def range_of(scheduler: str, name: str) -> Range | None:
    return OVERRIDES.get((scheduler, name)) or RANGES.get(name)


def problem(scheduler: str, name: str, value: object) -> str | None:
    """Why ``scheduler.name = value`` is refused, with the fix; None when it is fine (or not a number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        allowed = MAPPING_VALUES.get(name)
        if isinstance(value, dict) and allowed is not None:
            for key, v in value.items():
                if isinstance(v, int | float) and not isinstance(v, bool) and not allowed.admits(v):
                    return (f"{scheduler}.{name}.{key} must be in {allowed.text()}, got {v!r} "
                            f"(fix: give {name}.{key} a value in {allowed.text()})")
        return None
    if not math.isfinite(value):
        return f"{scheduler}.{name} must be finite, got {value!r} (fix: give a number)"
    allowed = range_of(scheduler, name)
    if allowed is not None and not allowed.contains(value):
        none = ", or none" if name == "time_limit_s" else ""
        return (f"{scheduler}.{name} must be in {allowed.text()}{none}, got {value!r} "
                f"(fix: give {name} a value in {allowed.text()}{none})")
    return None
