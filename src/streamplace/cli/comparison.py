"""Comparing schedulers on one instance, shared by `compare` and `demo`: the run with its progress bar, the
table and its legend, the HTML report with every plan's placement picture."""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.cli._common import out, progress_bar, warn
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.report.compare import COLUMNS, WIDE_COLUMNS, ComparisonRow, best_values, cell, comparison_legend
from streamplace.workflows import planning

if TYPE_CHECKING:
    from streamplace.perf.engines import EngineSettings


def run_comparison(t: Topology, c: Cluster, p: Profile | None, only: list[str] | None, params: dict[str, str],
                   quiet: bool = False, time_limit: float | None = None,
                   engine: EngineSettings | None = None, counts_from: str | None = None) -> list[ComparisonRow]:
    """workflows.planning.compare with a progress bar (none when ``quiet``)."""
    names = only or [s.name for s in planning.schedulers()]
    with progress_bar("{task.description}", "{task.completed}/{task.total}", disable=quiet) as progress:
        task = progress.add_task("planning", total=len(names))
        return planning.compare(t, c, names, params=params, profile=p, engine=engine, time_limit_s=time_limit,
                                on_done=lambda n: progress.update(task, advance=1, description=f"planned {n}"),
                                counts_from=counts_from, on_warning=warn)


def print_comparison(rows: list[ComparisonRow], title: str, wide: bool = False) -> None:
    """The comparison table (100 columns wide; ``wide`` adds mean utilization, cost and planning time), the
    operating point of its figures, then each scheduler's notes."""
    from rich import box  # the command-line start: rich where a table is printed
    from rich.console import Console
    from rich.table import Table

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
