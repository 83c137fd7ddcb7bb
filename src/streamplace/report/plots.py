"""Bar charts comparing schedulers (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from streamplace.errors import Problem, SpecError
from streamplace.report.compare import ComparisonRow


def check_plot_path(path: Path, option: str = "--plot") -> None:
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

PANELS = [
    ("throughput", "sustainable throughput (tuples/s)"),
    ("nodes_used", "nodes used"),
    ("max_utilization", "max CPU utilization at offered rate"),
    ("inter_node_traffic", "inter-node traffic (bytes/s)"),
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
    """One bar per scheduler and panel. Every scheduler appears: one without a usable plan (infeasible,
    refused) gets no bar and its status written where the bar would be, and a time-out is labelled so."""
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4 * len(PANELS), 3.6))
    names = [r.scheduler for r in rows]
    usable = [r.plan is not None and r.plan.status != "infeasible" for r in rows]
    for ax, (key, label) in zip(axes, PANELS, strict=True):
        values = [float(r.value(key) or 0.0) if ok else 0.0 for r, ok in zip(rows, usable, strict=True)]
        bars = ax.bar(names, values, color=["#4477aa" if ok else "#bbbbbb" for ok in usable])
        for bar, r, ok in zip(bars, rows, usable, strict=True):
            status = "refused" if r.plan is None else r.plan.status
            if not ok or status == "timeout":
                ax.annotate(status, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                            va="bottom", rotation=90, fontsize=7, color="#aa3377")
        ax.set_title(label, fontsize=9)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.tick_params(axis="y", labelsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig
