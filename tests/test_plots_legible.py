"""Charts people can read at their default size: no two labels overlap, axes say their units, the best is marked."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from streamplace.report.compare import ComparisonRow
from streamplace.report.plots import comparison_figure
from streamplace.report.sweep import sweep_figure

NAMES = ["round-robin", "r-storm", "ffd", "hill-climbing", "ant-system", "hybrid", "hetero", "ds2", "optimal",
         "max-throughput", "latency-aware-hybrid-long-name", "exhaustive"]


def _drawn_texts(fig) -> list[matplotlib.text.Text]:
    """The texts the figure shows: titles, axis labels, annotations, legends, and the tick labels whose ticks lie
    within their axis's view (matplotlib keeps labels of ticks outside it, undrawn)."""
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if low - 1e-9 <= tick.get_loc() <= high + 1e-9:
                    ticks.add(id(tick.label1))
    out = []
    for t in fig.findobj(matplotlib.text.Text):
        if not (t.get_visible() and t.get_text().strip()):
            continue
        is_tick = any(t is tick.label1 or t is tick.label2 for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
                      for tick in axis.get_major_ticks() + axis.get_minor_ticks())
        if not is_tick or id(t) in ticks:
            out.append(t)
    return out


def _overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of shown texts of the figure whose drawn boxes intersect."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in _drawn_texts(fig)]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2)
            if ba.overlaps(bb) and ba.width > 0 and bb.width > 0]


def _sweep_rows() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    data = []
    for seed in range(4):
        for k, name in enumerate(NAMES):
            data.append({"topology": "t", "cluster": "c", "scale": 1.0, "seed": seed, "scheduler": name,
                         "status": "ok", "throughput": 50.0 + 4 * k + float(rng.uniform(0, 5)),
                         "planning_ms": float(10 ** rng.uniform(0, 3)), "latency_ms": 5.0, "cost_per_hour": 1.0})
    return pd.DataFrame(data)


def test_the_sweep_chart_has_no_overlapping_labels_units_and_the_best_median_marked() -> None:
    fig = sweep_figure(_sweep_rows())
    try:
        assert _overlaps(fig) == []
        left, right = fig.axes[:2]
        assert "1 = best" in left.get_xlabel() and "ms" in right.get_xlabel()
        marked = [t.get_text() for t in left.texts if "★" in t.get_text()]
        assert len(marked) == 1
        assert left.get_yticklabels()[0].get_text() == "exhaustive"  # the best median first (on top)
    finally:
        plt.close(fig)


def test_the_comparison_chart_has_no_overlapping_labels_with_a_dozen_long_names() -> None:
    from streamplace.perf.evaluate import evaluate
    from streamplace.schedulers.base import create
    from tests.conftest import chain, two_racks

    topo, cluster = chain(), two_racks()
    rows = []
    for k, name in enumerate(NAMES):
        plan = create("round-robin" if k % 2 else "r-storm").plan(topo, cluster)
        rows.append(ComparisonRow(name, plan, evaluate(topo, cluster, plan)))
    fig = comparison_figure(rows, "chain on two-racks")
    try:
        assert _overlaps(fig) == []
        assert all(ax.get_xlabel() for ax in fig.axes)  # every value axis has its unit
    finally:
        plt.close(fig)
