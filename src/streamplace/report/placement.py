"""The placement picture: a plan drawn on its cluster (matplotlib, written as SVG or PNG).

Nodes are boxes grouped in columns by zone and rack, each with its id, type, CPU capacity and a bar of its
predicted CPU utilization at the plan's source rates (red above the 95 % the latency-aware paper allows); the
replicas on it are chips coloured by operator ("split ×3"). Traffic between nodes is drawn as arcs whose width
follows the predicted tuples/s that cross (every stream's rate shared out by where its two operators' input
is processed), orange within a rack, red across racks. The node the evaluation names as the bottleneck gets
a thick red frame and the title says what limits the plan. Above ``DETAIL_NODES`` nodes the picture
summarizes: one box per rack and machine type (its node count, the replicas per operator on it, mean and
highest utilization), arcs between those groups — so 1,000 nodes stay readable.

Pure drawing from an ``Evaluation`` (perf/evaluate.py) — no model code here. Text stays text in the SVG
(``svg.fonttype: none``) so it can be searched and tested.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import FancyArrowPatch, Rectangle

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.perf.evaluate import Evaluation, evaluate
from streamplace.report.compare import ComparisonRow
from streamplace.report.html import Picture

#: above this many nodes the picture shows one box per rack and machine type
DETAIL_NODES = 48
LIMIT = 0.95  # utilization drawn in red above it (Ecker et al.'s limit)
PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#332288", "#117733",
           "#999933", "#882255", "#44aa99", "#ddcc77", "#cc6677", "#88ccee", "#661100")
BOX_W, BOX_H, GAP_X, GAP_Y = 3.2, 2.3, 1.2, 0.5
WRAP = 6  # columns per line of the picture
PER_COLUMN = 6  # boxes per column: a rack of more takes several columns
LEGEND_OPERATORS = 16  # operators named in the legend at most


@dataclass(frozen=True)
class Box:
    """One drawn box: a node, or a group of nodes (rack × type) in the summary."""

    label: str
    detail: str
    replicas: dict[str, int]  # operator → replicas in the box
    utilization: float  # mean over the box's nodes
    highest: float  # the highest of its nodes
    column: int
    row: int
    used: bool
    bottleneck: bool


def node_traffic(evaluation: Evaluation, topology: Topology) -> np.ndarray:
    """(nodes, nodes) tuples/s from node u to node v (u ≠ v) at the plan's source rates: each stream's rate
    shared by where its source and target operators process their input."""
    cells, rates = evaluation.cells, evaluation.rates
    share = cells.share_matrix()
    n = cells.n_nodes
    flow = np.zeros((n, n))
    idx = topology.index
    for k, s in enumerate(topology.streams):
        flow += float(rates.stream[k]) * np.outer(share[idx[s.source]], share[idx[s.target]])
    np.fill_diagonal(flow, 0.0)
    return flow


def heaviest_pairs(traffic: np.ndarray, share: float = 0.8, most: int = 24) -> tuple[np.ndarray, float]:
    """The box pairs (rows of an upper-triangular traffic matrix) that carry ``share`` of the traffic, heaviest
    first, at most ``most`` of them — every pair drawn is a hairball — and the share they carry."""
    order = np.argsort(-traffic, axis=None, kind="stable")
    values = traffic.ravel()[order]
    values = values[values > 0]
    if not len(values):
        return np.zeros((0, 2), dtype=np.intp), 0.0
    cumulative = np.cumsum(values) / values.sum()
    keep = min(int(np.searchsorted(cumulative, share - 1e-12)) + 1, most, len(values))
    pairs = np.column_stack(np.unravel_index(order[:keep], traffic.shape))
    return pairs, float(cumulative[keep - 1])


def _bottleneck_node(evaluation: Evaluation, cluster: Cluster) -> int | None:
    """The node the evaluation's bottleneck names, else the most utilized node where utilization binds."""
    text = evaluation.bottleneck or ""
    for k, node in enumerate(cluster.nodes):
        if node.id in text.split():
            return k
    used = list(evaluation.nodes_used)
    if used and ("cpu" in text or not text):
        return int(max(used, key=lambda u: evaluation.cpu_utilization[u]))
    return None


def _columns(cluster: Cluster) -> list[tuple[str, list[int]]]:
    """(title, node indices) per zone/rack column, in the cluster's order."""
    out: dict[str, list[int]] = {}
    for k, node in enumerate(cluster.nodes):
        title = node.rack if len({n.zone for n in cluster.nodes}) == 1 else f"{node.zone} / {node.rack}"
        out.setdefault(title, []).append(k)
    return list(out.items())


def boxes(topology: Topology, cluster: Cluster, plan: Plan, evaluation: Evaluation
          ) -> tuple[list[Box], np.ndarray, list[str], np.ndarray]:
    """The boxes to draw, the traffic between them (boxes × boxes), the column titles, and each node's box."""
    util = np.asarray(evaluation.cpu_utilization, dtype=float)
    used = set(evaluation.nodes_used)
    hot = _bottleneck_node(evaluation, cluster)
    columns = _columns(cluster)
    detail = len(cluster) <= DETAIL_NODES
    out: list[Box] = []
    of_node = np.zeros(len(cluster), dtype=np.intp)
    titles: list[str] = []
    for name, members in columns:
        groups: dict[str, list[int]] = {}
        for k in members:
            groups.setdefault(str(k) if detail else cluster.nodes[k].type, []).append(k)
        # a rack of many boxes takes several columns of at most PER_COLUMN boxes each
        start = len(titles)
        n_sub = -(-len(groups) // PER_COLUMN)
        titles += [name] + [""] * (n_sub - 1)
        for position, ks in enumerate(groups.values()):
            c, row = start + position // PER_COLUMN, position % PER_COLUMN
            reps: dict[str, int] = {}
            for op, per in plan.replicas.items():
                count = sum(per.get(cluster.nodes[k].id, 0) for k in ks)
                if count:
                    reps[op] = count
            first = cluster.nodes[ks[0]]
            if detail:
                label = first.id
                info = f"{first.type} · {first.cpu:g} pts"
            else:
                label = f"{first.type} × {len(ks)}"
                info = f"{sum(k in used for k in ks)} used · {first.cpu:g} pts each"
            for k in ks:
                of_node[k] = len(out)
            out.append(Box(label, info, reps, float(util[ks].mean()), float(util[ks].max()), c, row,
                           any(k in used for k in ks), hot in ks if hot is not None else False))
    flow = node_traffic(evaluation, topology)
    grouped = np.zeros((len(out), len(out)))
    np.add.at(grouped, (of_node[:, None], of_node[None, :]), flow)
    np.fill_diagonal(grouped, 0.0)
    return out, grouped, titles, of_node


def placement_figure(topology: Topology, cluster: Cluster, plan: Plan, evaluation: Evaluation,
                     title: str | None = None) -> plt.Figure:
    """The placement picture (see the module docstring) as a matplotlib figure."""
    drawn, traffic, titles, _ = boxes(topology, cluster, plan, evaluation)
    colour = {op.id: PALETTE[k % len(PALETTE)] for k, op in enumerate(topology.operators)}
    n_cols = min(max(b.column for b in drawn) + 1, WRAP)
    n_rows = max(b.row for b in drawn) + 1
    n_lines = (max(b.column for b in drawn)) // WRAP + 1
    line_h = (n_rows * (BOX_H + GAP_Y) + 0.9)
    width, height = n_cols * (BOX_W + GAP_X) + GAP_X, n_lines * line_h + 0.6
    scale = 0.36  # inches per unit: boxes keep their shape at any size
    fig = plt.figure(figsize=(max(7.0, width * scale), (height + 3.4) * scale))
    top = 1.0 - 2.1 * scale / fig.get_figheight()
    legend_h = 1.3 * scale / fig.get_figheight()
    ax = fig.add_axes((0, legend_h, 1, top - legend_h))
    spare = max(0.0, 7.0 / scale - width) / 2  # a narrow picture sits in the middle of the page
    ax.set_xlim(-spare, width + spare)
    ax.set_ylim(-height + 0.6, 0.9)
    ax.axis("off")

    def corner(b: Box) -> tuple[float, float]:
        line, col = divmod(b.column, WRAP)
        return GAP_X + col * (BOX_W + GAP_X), -line * line_h - b.row * (BOX_H + GAP_Y)

    def centre(b: Box) -> tuple[float, float]:
        x, y = corner(b)
        return x + BOX_W / 2, y - BOX_H / 2

    for c, name in enumerate(titles):
        line, col = divmod(c, WRAP)
        ax.text(GAP_X + col * (BOX_W + GAP_X) + BOX_W / 2, 0.15 - line * line_h, name, ha="center", va="bottom",
                fontsize=9, fontweight="bold", color="#444444")
    both = np.triu(traffic + traffic.T)
    pairs, share = heaviest_pairs(both)
    peak = float(both.max()) if both.size else 0.0
    for a, b in pairs:
        volume = float(both[a, b])
        across = drawn[a].column != drawn[b].column
        arc = FancyArrowPatch(centre(drawn[a]), centre(drawn[b]), arrowstyle="-",
                              connectionstyle=f"arc3,rad={0.35 if not across else 0.12}",
                              linewidth=0.6 + 6.0 * volume / peak if peak > 0 else 0.6,
                              color="#cc3311" if across else "#ee7733", alpha=0.55, zorder=1)
        ax.add_patch(arc)
    for b in drawn:
        x, y = corner(b)
        ax.add_patch(Rectangle((x, y - BOX_H), BOX_W, BOX_H, facecolor="white" if b.used else "#f2f2f2",
                               edgecolor="#cc3311" if b.bottleneck else "#555555",
                               linewidth=3.0 if b.bottleneck else 0.8, zorder=2))
        ax.text(x + 0.08, y - 0.08, b.label, ha="left", va="top", fontsize=8, fontweight="bold", zorder=3)
        ax.text(x + 0.08, y - 0.42, b.detail, ha="left", va="top", fontsize=6.5, color="#555555", zorder=3)
        bar, bar_w = min(b.highest, 1.0), (BOX_W - 0.16) * 0.45
        ax.add_patch(Rectangle((x + 0.08, y - BOX_H + 0.12), bar_w * bar, 0.2, zorder=3,
                               facecolor="#cc3311" if b.highest > LIMIT else "#88aa55", edgecolor="none"))
        ax.add_patch(Rectangle((x + 0.08, y - BOX_H + 0.12), bar_w, 0.2, zorder=3, facecolor="none",
                               edgecolor="#999999", linewidth=0.5))
        util_text = f"CPU {b.highest:.0%}" if b.utilization == b.highest else \
            f"CPU {b.utilization:.0%} mean, {b.highest:.0%} max"
        ax.text(x + 0.16 + bar_w, y - BOX_H + 0.22, util_text, ha="left", va="center", fontsize=6.5, zorder=3,
                color="#cc3311" if b.highest > LIMIT else "#333333")
        _chips(ax, b.replicas, colour, x + 0.08, y - 0.78)
    headline = title or f"{plan.scheduler} plan of {topology.name} on {cluster.name}"
    n_pairs = int((both > 0).sum())
    drawn_text = (f"\narcs: the {len(pairs)} of {n_pairs} node pairs that carry {share:.0%} of the inter-node traffic"
                  if len(pairs) < n_pairs else "")
    # wrapped to the figure's width: a long bottleneck ("Spark micro-batches: per-tuple work of …") ran off it
    per_line = max(40, int(fig.get_size_inches()[0] / 0.075))
    lines = [headline, f"{evaluation.throughput:,.0f} tuples/s sustainable ({evaluation.sustainable_scale:.2f} × "
             f"offered); limit: {evaluation.bottleneck}", *drawn_text.strip().splitlines()]
    fig.suptitle("\n".join(textwrap.fill(line, per_line) for line in lines), fontsize=9)
    named = topology.operators[:LEGEND_OPERATORS]
    handles: list[Artist] = [Rectangle((0, 0), 1, 1, color=colour[op.id]) for op in named]
    labels = [op.id for op in named]
    if len(topology.operators) > len(named):
        handles.append(Rectangle((0, 0), 1, 1, color="white"))
        labels.append(f"… {len(topology.operators) - len(named)} more operators")
    handles += [plt.Line2D([0], [0], color="#ee7733", lw=3), plt.Line2D([0], [0], color="#cc3311", lw=3)]
    labels += ["traffic within a rack (width: tuples/s)", "traffic across racks"]
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=7, frameon=False)
    return fig


def _chips(ax: plt.Axes, replicas: dict[str, int], colour: dict[str, str], x: float, y: float) -> None:
    """The replicas of a box as coloured chips with their operator and count, a few per line."""
    per_line, lines, chip_w, chip_h = 2, 3, (BOX_W - 0.24) / 2, 0.27
    for k, (op, count) in enumerate(sorted(replicas.items(), key=lambda kv: -kv[1])):
        if k >= lines * per_line:
            ax.text(x, y - lines * (chip_h + 0.04), f"+{len(replicas) - k} more operators", fontsize=6, va="top",
                    zorder=3)
            break
        cx, cy = x + (k % per_line) * (chip_w + 0.08), y - (k // per_line) * (chip_h + 0.04)
        ax.add_patch(Rectangle((cx, cy - chip_h), chip_w, chip_h, facecolor=colour.get(op, "#999999"),
                               edgecolor="none", alpha=0.85, zorder=3))
        ax.text(cx + 0.05, cy - chip_h / 2, f"{op} ×{count}", fontsize=6, va="center", ha="left", color="white",
                zorder=4, clip_on=True)


def write_placement(topology: Topology, cluster: Cluster, plan: Plan, evaluation: Evaluation, path: str | Path,
                    title: str | None = None) -> Path:
    """Write the placement picture to ``path`` (.svg, or any format matplotlib writes)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig = placement_figure(topology, cluster, plan, evaluation, title)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(out)
    plt.close(fig)
    return out


def svg_text(topology: Topology, cluster: Cluster, plan: Plan, evaluation: Evaluation,
             title: str | None = None) -> str:
    """The picture as SVG text (to embed in an HTML report)."""
    import io

    fig = placement_figure(topology, cluster, plan, evaluation, title)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg")
    plt.close(fig)
    return buf.getvalue()


__all__: Sequence[str] = ("DETAIL_NODES", "boxes", "node_traffic", "placement_figure", "svg_text",
                          "write_placement")


def plan_svg(topology: Topology, cluster: Cluster, plan: Plan, engine: EngineSettings | None = None) -> str:
    """The plan's picture on the cluster it was made for, evaluated by ``engine``'s model, as SVG text."""
    return svg_text(topology, cluster, plan, evaluate(topology, cluster, plan, None, engine=engine))


def placement_pictures(t: Topology, c: Cluster, p: Profile | None, eng: EngineSettings,
                       rows: Sequence[ComparisonRow]) -> list[Any]:
    """Every usable plan's placement picture, captioned with its scheduler, for an HTML report."""
    out = []
    for r in rows:
        if r.plan is not None and r.has_values:
            ev = evaluate(t, c, r.plan, p, engine=eng)
            out.append(Picture(r.scheduler, svg_text(t, c, r.plan, ev)))
    return out
