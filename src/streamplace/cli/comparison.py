"""Comparing schedulers on one instance, shared by `compare` and `demo`: the run with its progress bar, the
table and its legend, the HTML report with every plan's placement picture."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table

from streamplace.cli._common import out, progress_bar
from streamplace.files import replace_whole
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.report.compare import COLUMNS, WIDE_COLUMNS, ComparisonRow, best_values, cell, fmt
from streamplace.workflows import planning

if TYPE_CHECKING:
    from streamplace.perf.engines import EngineSettings


def placement_pictures(t: Topology, c: Cluster, p: Profile | None, eng: EngineSettings,
                       rows: list[ComparisonRow]) -> list[Any]:
    """Every usable plan's placement picture, captioned with its scheduler, for an HTML report."""
    from streamplace.report.html import Picture
    from streamplace.report.placement import svg_text

    out = []
    for r in rows:
        if r.plan is not None and r.has_values:
            ev = planning.evaluate(t, c, r.plan, profile=p, engine=eng)
            out.append(Picture(r.scheduler, svg_text(t, c, r.plan, ev)))
    return out


def compare_report(t: Topology, c: Cluster, p: Profile | None, eng: EngineSettings, rows: list[ComparisonRow],
                   html: Path, plot: Path | None) -> None:
    """``compare --html``: the comparison table, the bar chart and every plan's picture side by side."""
    import tempfile

    from streamplace.report.html import write_report
    from streamplace.report.plots import plot_comparison

    title = f"{t.name} on {c.name} ({eng.name} engine)"
    with tempfile.TemporaryDirectory() as tmp:
        chart = plot if plot is not None else plot_comparison(rows, Path(tmp) / "compare.png", title)
        pictures = placement_pictures(t, c, p, eng, rows)
        replace_whole(html, lambda out: write_report(rows, chart, out, f"streamplace compare: {title}", [],
                                                     legend=comparison_legend(rows), pictures=pictures))


def run_comparison(t: Topology, c: Cluster, p: Profile | None, only: list[str] | None, params: dict[str, str],
                   quiet: bool = False, time_limit: float | None = None,
                   engine: EngineSettings | None = None, counts_from: str | None = None) -> list[ComparisonRow]:
    """workflows.planning.compare with a progress bar (none when ``quiet``)."""
    names = only or [s.name for s in planning.schedulers()]
    with progress_bar("{task.description}", "{task.completed}/{task.total}", disable=quiet) as progress:
        task = progress.add_task("planning", total=len(names))
        return planning.compare(t, c, names, params=params, profile=p, engine=engine, time_limit_s=time_limit,
                                on_done=lambda n: progress.update(task, advance=1, description=f"planned {n}"),
                                counts_from=counts_from)


def print_comparison(rows: list[ComparisonRow], title: str, wide: bool = False) -> None:
    """The comparison table (100 columns wide; ``wide`` adds mean utilization, cost and planning time), the
    operating point of its figures, then each scheduler's notes."""
    columns = COLUMNS + (WIDE_COLUMNS if wide else [])
    best = best_values(rows, [k for k, _ in columns])
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for key, label in columns:
        table.add_column(label, justify="left" if key in ("scheduler", "status") else "right",
                         no_wrap=key in ("scheduler", "status"))
    for r in rows:
        table.add_row(*(cell(r, k, best) for k, _ in columns))
    (Console(width=160) if wide else out).print(table)
    out.print(comparison_legend(rows), highlight=False)
    for r in rows:
        for line in r.notes:
            out.print(f"  {r.scheduler}: {line}", highlight=False)


def comparison_legend(rows: list[ComparisonRow]) -> str:
    """What the comparison's figures mean: its operating points and the best-value mark."""
    offered = next((r.at_offered.get("offered_throughput") for r in rows if r.at_offered), None)
    at = f"the offered {fmt(offered)} t/s into sinks" if offered is not None else "the offered source rates"
    return (f"max t/s: each plan's own limit; the other figures at {at}; * marks the best value of a column; "
            "latency ∞: the plan cannot keep up with the offered rate")
