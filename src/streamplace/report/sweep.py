"""An HTML summary of a sweep: how each scheduler does across every instance, and where each one wins.

Instances are compared within their group — the same topology, cluster, rate
scale and seed — so a scheduler's *throughput ratio* is its sustainable
throughput over the best any scheduler reached on that instance (1 = best).
Tables: per scheduler (instances, plans, refusals, median and 10th percentile
ratio, share of instances where it is best within 1 %, median latency, cost and
planning time, 95th percentile planning time); per topology × cluster, the
scheduler best most often; the sweep's own timing. The plot: the ratio's
distribution per scheduler and planning time. Cost: O(rows log rows) (pandas).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from streamplace.bench.sweep import META
from streamplace.errors import Problem, SpecError
from streamplace.report.html import Section, page

GROUP = ["topology", "cluster", "scale", "seed"]


def load_sweep(path: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The rows of a sweep directory and its ``_sweep.json`` (empty if absent); a clear error if it is none."""
    if not path.exists():
        raise SpecError([Problem(str(path), "no such sweep", "write one first with `streamplace sweep`")])
    try:
        rows = pd.read_parquet(path)
    except ImportError:  # no parquet engine in this install: the CLI says which extra brings it
        raise
    except Exception as exc:  # pyarrow's errors vary by cause
        raise SpecError([Problem(str(path), f"not a sweep's Parquet output ({exc})",
                                 "give the output directory `streamplace sweep` wrote")]) from None
    missing = {"topology", "cluster", "scheduler", "scale", "seed", "status", "throughput"} - set(rows.columns)
    if missing:
        raise SpecError([Problem(str(path), f"missing columns {', '.join(sorted(missing))}",
                                 "give the output directory `streamplace sweep` wrote")])
    meta_file = path / META
    meta = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
    return rows, meta


def with_ratios(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows plus ``ratio``: throughput over the best throughput of its instance group (NaN without a plan); rows
    that have it already are returned as they are, so the summaries below can share one computation."""
    if "ratio" in rows.columns:
        return rows
    out = rows.copy()
    planned = out["status"].isin(["ok", "timeout"]) & out["throughput"].notna()
    best = out[planned].groupby(GROUP)["throughput"].transform("max")
    out["ratio"] = float("nan")
    out.loc[planned, "ratio"] = out.loc[planned, "throughput"] / best.where(best > 0)
    return out


def scheduler_table(rows: pd.DataFrame) -> pd.DataFrame:
    r = with_ratios(rows)
    g = r.groupby("scheduler")
    table = pd.DataFrame({
        "instances": g.size(),
        "plans": g["ratio"].count(),
        "infeasible": g["status"].apply(lambda s: int((s == "infeasible").sum())),
        "refused": g["status"].apply(lambda s: int((s == "refused").sum())),
        "median ratio": g["ratio"].median(),
        "p10 ratio": g["ratio"].quantile(0.1),
        "best (within 1 %)": g["ratio"].apply(lambda s: float((s >= 0.99).mean()) if len(s) else float("nan")),
        "median latency (ms)": g["latency_ms"].median(),
        "median cost (/h)": g["cost_per_hour"].median(),
        "median planning (ms)": g["planning_ms"].median(),
        "p95 planning (ms)": g["planning_ms"].quantile(0.95),
    })
    return table.sort_values("median ratio", ascending=False)


def winners(rows: pd.DataFrame) -> pd.DataFrame:
    """Per topology × cluster: the scheduler that is best (within 1 %) on most of its instances."""
    r = with_ratios(rows)
    best = r[r["ratio"] >= 0.99]
    counts = best.groupby(["topology", "cluster", "scheduler"]).size().rename("wins").reset_index()
    groups = r.groupby(["topology", "cluster"]).apply(lambda d: d[GROUP[2:]].drop_duplicates().shape[0],
                                                      include_groups=False).rename("instances")
    top = counts.sort_values(["topology", "cluster", "wins", "scheduler"], ascending=[True, True, False, True])
    top = top.groupby(["topology", "cluster"]).agg(best=("scheduler", "first"), wins=("wins", "first"))
    return top.join(groups, how="right").fillna({"best": "—", "wins": 0})


def plot_sweep(rows: pd.DataFrame, path: Path, order: list[str] | None = None) -> Path:
    """Write sweep_figure to ``path`` (PNG)."""
    import matplotlib.pyplot as plt

    fig = sweep_figure(rows, order)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def sweep_figure(rows: pd.DataFrame, order: list[str] | None = None) -> Any:
    """Ratio box plots and planning-time CDFs, schedulers in ``order`` (default: scheduler_table's, best first).

    Horizontal boxes with the scheduler names on the y axis (legible however many and however long: upright
    names under vertical boxes ran into each other), the axes labelled with their units, the scheduler with the
    highest median ratio darker and marked ★, each box's median written beside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = with_ratios(rows)
    order = order or list(scheduler_table(r).index)
    height = max(3.6, 0.36 * len(order) + 1.6)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, height), gridspec_kw={"width_ratios": [1.1, 1]})
    data = [r.loc[r["scheduler"] == s, "ratio"].dropna().to_numpy() for s in order]
    medians = [float(np.median(d)) if len(d) else float("nan") for d in data]
    best = max((m for m in medians if m == m), default=None)
    y = list(range(len(order)))[::-1]  # the first scheduler on top
    shown = [(d, pos) for d, pos in zip(data, y, strict=True) if len(d)]
    if shown:
        boxes = left.boxplot([d for d, _ in shown], positions=[pos for _, pos in shown], orientation="horizontal",
                             showfliers=False, patch_artist=True, widths=0.6)
        for patch, (d, _pos) in zip(boxes["boxes"], shown, strict=True):
            top = best is not None and float(np.median(d)) >= best - 1e-12
            patch.set_facecolor("#1f4e79" if top else "#a9c4e0")
    for pos, m in zip(y, medians, strict=True):
        text = "no plan" if m != m else f"median {m:.3f}" + (" ★" if best is not None and m >= best - 1e-12 else "")
        left.annotate(text, (1.005, pos), xycoords=("axes fraction", "data"), va="center", fontsize=7,
                      color="#aa3377" if m != m else "#222222")
    left.set_yticks(y, order, fontsize=8)
    left.set_xlabel("throughput / best plan's on the same instance (1 = best)", fontsize=8)
    left.set_title("throughput ratio per instance (★ best median)", fontsize=10)
    left.tick_params(axis="x", labelsize=7)
    for k, s in enumerate(order):
        t = r.loc[r["scheduler"] == s, "planning_ms"].dropna().sort_values().to_numpy()
        if len(t):
            right.step(t, np.arange(1, len(t) + 1) / len(t), where="post", label=s,
                       color=plt.get_cmap("tab20")(k % 20))
    right.set_xscale("log")
    times = r["planning_ms"].dropna()
    if len(times) and times.min() > 0:  # room left of the fastest plan: its tick label met the y axis's labels
        right.set_xlim(left=float(times.min()) / 2)
    right.set_xlabel("planning time (ms, log scale)", fontsize=8)
    right.set_ylabel("share of instances planned within it", fontsize=8)
    right.set_title("planning time", fontsize=10)
    right.tick_params(labelsize=7)
    right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def write_sweep_report(path: Path, out: Path) -> Path:
    rows, meta = load_sweep(path)
    rows = with_ratios(rows)
    sched = scheduler_table(rows)
    win = winners(rows)
    sections = [
        Section("Schedulers across all instances", _table(sched, "scheduler"),
                ["ratio: the scheduler's sustainable throughput over the best any scheduler reached on the same "
                 "topology, cluster, rate scale and seed (1 = best)"]),
        Section("Best scheduler per topology × cluster", _table(win, "topology × cluster"),
                ["wins: instances (rate scales × seeds) where it was best within 1 %"]),
    ]
    notes = [f"{len(rows):,} rows from {path}"]
    if meta:
        notes.append(f"swept in {meta['seconds']:.1f} s on {meta.get('master')} ({meta.get('cores')} cores): "
                     f"{meta['per_second']:.0f} instances/s in {meta['tasks']} Spark tasks")
        notes.append("axes: " + "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in meta.get("axes", {}).items()
                                          if len(v) <= 12))
    out.parent.mkdir(parents=True, exist_ok=True)
    png = plot_sweep(rows, out.with_suffix(".png"), list(sched.index))
    image = base64.b64encode(png.read_bytes()).decode()
    out.write_text(page("streamplace sweep", sections, notes, image), encoding="utf-8")
    return out


def _table(frame: pd.DataFrame, index_label: str) -> list[tuple[str, ...]]:
    head = (index_label, *map(str, frame.columns))
    rows = []
    for idx, rec in frame.iterrows():
        label = " × ".join(map(str, idx)) if isinstance(idx, tuple) else str(idx)
        rows.append((label, *(_cell(v) for v in rec.to_numpy())))
    return [head, *rows]


def _cell(v: Any) -> str:
    if isinstance(v, float):
        if v != v:
            return "—"
        return f"{v:,.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)
