"""Self-contained HTML pages (tables, notes, an embedded PNG) rendered from one Jinja2 template.

The template (templates/page.html.j2) escapes every value it is given, so
callers pass plain text, never HTML.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from streamplace._version import __version__
from streamplace.report.compare import COLUMNS, ComparisonRow, best_values, cell

COMPARISON_INTRO = ("Predicted by the performance model (max t/s: sink input rate at the largest sustainable scale of "
                    "each plan's source rates; delivered and the rest: at the topology's offered rate).")


@dataclass(frozen=True)
class Section:
    """An extra part of a page: a heading, a table (first row: column names) and notes."""

    heading: str
    table: list[tuple[str, ...]]
    notes: list[str]


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.PackageLoader("streamplace.report", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    return env.get_template("page.html.j2")


@dataclass(frozen=True)
class Picture:
    """A placement picture for the page: its caption and the SVG that report/placement.py drew (our own markup,
    inserted as is; everything else on the page is escaped)."""

    caption: str
    svg: str


def render(title: str, intro: str, *, notes: Sequence[str] = (), sections: Sequence[Section] = (),
           png_base64: str | None = None, comparison: dict[str, Any] | None = None,
           image_first: bool = False, pictures: Sequence[Picture] = ()) -> str:
    """The page's HTML: title, intro, an optional comparison table, notes, sections, the PNG and the placement
    pictures side by side."""
    drawn = [{"caption": p.caption, "svg": markupsafe.Markup(_strip_prolog(p.svg))} for p in pictures]
    return _template().render(
        title=title, intro=intro, version=__version__, stamp=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        notes=list(notes), sections=list(sections), png=png_base64, comparison=comparison,
        image_first=image_first, pictures=drawn)


def _strip_prolog(svg: str) -> str:
    """The SVG element alone (no XML declaration or DOCTYPE), to sit inline in HTML."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def comparison_table(rows: Sequence[ComparisonRow], legend: str) -> dict[str, Any]:
    """The comparison's table for the template: every column of ``COLUMNS``, best values flagged."""
    keys = [k for k, _ in COLUMNS]
    best = best_values(rows, keys)
    return {"labels": [label for _, label in COLUMNS], "legend": legend, "rows": [
        {"name": r.scheduler, "bad": r.status in ("infeasible", "refused"), "notes": r.notes,
         "cells": [{"text": cell(r, k), "best": r.scheduler in best.get(k, ())} for k in keys]} for r in rows]}


def write_report(rows: Sequence[ComparisonRow], plot: Path | None, out: Path, title: str, notes: list[str],
                 sections: Sequence[Section] = (), legend: str = "", pictures: Sequence[Picture] = ()) -> Path:
    """Write a comparison report (table with the best values in bold, the plot, notes, sections, each plan's
    placement picture) to ``out``."""
    png = base64.b64encode(plot.read_bytes()).decode("ascii") if plot is not None and plot.exists() else None
    text = render(title, COMPARISON_INTRO, notes=notes, sections=sections, png_base64=png,
                  comparison=comparison_table(rows, legend), image_first=True, pictures=pictures)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


def page(title: str, sections: list[Section], notes: list[str], png_base64: str | None = None) -> str:
    """A self-contained HTML page: title, notes, sections (tables), then an embedded PNG."""
    return render(title, "Predicted by the performance model.", notes=notes, sections=sections,
                  png_base64=png_base64)
