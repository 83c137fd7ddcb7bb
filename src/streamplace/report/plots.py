"""Bar charts comparing schedulers (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from streamplace.errors import Problem, SpecError
from streamplace.report.compare import ComparisonRow, best_values


def check_plot_path(path: Path, option: str = "plot") -> None:
    """Refuse, before any work is done, a plot path whose format matplotlib cannot write or whose directory
    does not exist."""
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in formats:
        raise SpecError([Problem(option, f"matplotlib cannot write {path.suffix or 'a file without a suffix'}",
                                 f"end the path with one of .{', .'.join(sorted(formats))} (e.g. .png)")], str(path))
    if not path.parent.is_dir():
        raise SpecError([Problem(option, f"directory {path.parent} does not exist", "create it first")], str(path))

#: (value key, panel title, axis label with its unit)
PANELS = [
    ("throughput", "sustainable throughput (more is better)", "tuples/s"),
    ("nodes_used", "nodes used (fewer is better)", "nodes"),
    ("max_utilization", "max CPU utilization at the offered rate", "share of the node's CPU"),
    ("inter_node_traffic", "inter-node traffic at the offered rate", "bytes/s"),
]


def plot_comparison(rows: list[ComparisonRow], path: str | Path, title: str) -> Path:
    """Write the comparison chart (comparison_figure) to ``path``."""
    fig = comparison_figure(rows, title)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def comparison_figure(rows: list[ComparisonRow], title: str) -> plt.Figure:
    """One horizontal bar per scheduler and panel, the scheduler names on the y axis (legible however many and
    however long), the value axis labelled with its unit, the best value in each panel in a darker colour and
    marked ★ (none where all are equal). Every scheduler appears: one without a usable plan (infeasible,
    refused) gets no bar and its status written where the bar would be, and a time-out is labelled so."""
    height = max(3.2, 0.32 * len(rows) + 1.4)
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4.2 * len(PANELS), height), sharey=True)
    names = [r.scheduler for r in rows]
    usable = [r.plan is not None and r.plan.status != "infeasible" for r in rows]
    best = best_values(rows, [k for k, _, _ in PANELS])
    y = list(range(len(rows)))[::-1]  # the first scheduler on top
    for ax, (key, label, unit) in zip(axes, PANELS, strict=True):
        values = [float(r.value(key) or 0.0) if ok else 0.0 for r, ok in zip(rows, usable, strict=True)]
        marked = best.get(key, set())
        colours = ["#1f4e79" if n in marked else "#4477aa" if ok else "#bbbbbb"
                   for n, ok in zip(names, usable, strict=True)]
        bars = ax.barh(y, values, color=colours)
        top = max(values, default=0.0) or 1.0
        for bar, r, ok, v in zip(bars, rows, usable, values, strict=True):
            status = "refused" if r.plan is None else r.plan.status
            text = status if not ok else (f"{v:,.3g} ★" if r.scheduler in marked else f"{v:,.3g}")
            if ok and status == "timeout":
                text += " (time-out)"
            ax.annotate(text, (bar.get_width() + 0.01 * top, bar.get_y() + bar.get_height() / 2), va="center",
                        fontsize=7, color="#aa3377" if not ok or status == "timeout" else "#222222")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel(unit, fontsize=8)
        ax.set_xlim(0, top * 1.35)
        # at most 4 value ticks, none at the right edge: the last label ran into the next panel's first one
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, prune="upper"))
        ax.tick_params(axis="x", labelsize=7)
        ax.set_yticks(y, names, fontsize=8)
    fig.suptitle(title + "  (★ best)", fontsize=11)
    fig.tight_layout(w_pad=1.5)
    return fig
