"""Elastic runs reported in the shape of Hochreiner et al. 2017: Tables 3–6 (mean ± std over seeds) and Fig. 8 plots.

A *configuration* is a controller billed at one BTU length (``BTU10``, ``BTU30``,
``BTU60`` for the BTU-aware controller; ``threshold/BTU10`` … for the baseline,
which the paper also bills at every BTU length). Rows are the paper's: the three
SLA compliance levels, the resource cost and the total cost per level; we add
time to adapt, VMs leased and scaling counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt

LEVELS = (("realtime", "Real-time"), ("near_realtime", "Near real-time"), ("relaxed", "Relaxed"))


def table_rows(runs: dict[str, list[dict]]) -> list[tuple[str, list[str]]]:
    """(row label, one cell per configuration) for summaries grouped by configuration (several seeds each)."""

    def stat(name: str, get, pct: bool = False, digits: int = 2) -> tuple[str, list[str]]:
        cells = []
        for summaries in runs.values():
            values = np.array([get(s) for s in summaries], dtype=float)
            m, sd = values.mean(), values.std(ddof=1) if len(values) > 1 else 0.0
            cells.append(f"{100 * m:.0f}% (s = {100 * sd:.0f}%)" if pct else f"{m:.{digits}f} (s = {sd:.{digits}f})")
        return name, cells

    rows = [stat(f"{label} compliance", lambda s, k=key: s["compliance"][k], pct=True) for key, label in LEVELS]
    rows.append(stat("Resource cost", lambda s: s["resource_cost"]))
    rows += [stat(f"{label} total cost", lambda s, k=key: s["total_cost"][k]) for key, label in LEVELS]
    rows.append(stat("Time to adapt (s)", lambda s: s["time_to_adapt_s"], digits=0))
    rows.append(stat("VMs leased", lambda s: s["vms_leased"], digits=1))
    rows.append(stat("Upscaling", lambda s: s["scaling"]["up"], digits=0))
    rows.append(stat("Downscaling", lambda s: s["scaling"]["down"], digits=0))
    rows.append(stat("Migrations", lambda s: s["scaling"]["migrations"], digits=0))
    return rows


def write_table_csv(runs: dict[str, list[dict]], path: str | Path) -> Path:
    """The comparison table (metric per row, one column per run) as CSV."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([[label, *cells] for label, cells in table_rows(runs)], columns=["metric", *runs])
    frame.to_csv(path, index=False)
    return path


def plot_timeline(series: dict[str, np.ndarray], ax, title: str) -> None:
    """One Fig. 8 panel: machines and VMs on the left axis, operator instances on the right."""
    minutes = series["minute"]
    ax.step(minutes, series["machines"], where="post", color="#999999", label="pattern (machines)")
    ax.step(minutes, series["vms"], where="post", color="#4477aa", label="VMs")
    ax.set_ylim(0, max(9, float(np.max(series["vms"])) + 1))
    ax.set_xlabel("time (minutes)")
    ax.set_ylabel("machines and VMs")
    ax.set_title(title, fontsize=9)
    right = ax.twinx()
    right.plot(minutes, series["instances"], color="#cc6677", label="operator instances")
    right.set_ylim(0, max(70, float(np.max(series["instances"])) * 1.1))
    right.set_ylabel("operator instances")
    handles = ax.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    labels = ax.get_legend_handles_labels()[1] + right.get_legend_handles_labels()[1]
    ax.legend(handles, labels, fontsize=7, loc="upper left")


def plot_figure(panels: Sequence[tuple[str, dict[str, np.ndarray]]], path: str | Path, title: str) -> Path:
    """Panels side by side (2 × 2 for four), as in Hochreiner et al.'s (2017) Figs. 8–11."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.6 * rows), squeeze=False)
    for ax, (name, series) in zip(axes.flat, panels, strict=False):
        plot_timeline(series, ax, name)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
