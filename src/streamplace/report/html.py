"""A self-contained HTML report (table + embedded plot) of a comparison."""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from streamplace import __version__
from streamplace.report.compare import COLUMNS, ComparisonRow, cell

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:right}
th{background:#f0f3f8}td:first-child,th:first-child{text-align:left}.bad{color:#a00}
code{background:#f4f4f4;padding:0 .2rem}
"""


@dataclass(frozen=True)
class Section:
    """An extra part of the report: a heading, a table (first row: column names) and notes."""

    heading: str
    table: list[tuple[str, ...]]
    notes: list[str]

    def html(self) -> str:
        head, *rows = self.table
        cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
        items = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        return f"<h2>{html.escape(self.heading)}</h2><table><tr>{cells}</tr>{body}</table><ul>{items}</ul>"


def write_report(rows: list[ComparisonRow], plot: Path | None, out: Path, title: str, notes: list[str],
                 sections: tuple[Section, ...] = ()) -> Path:
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in COLUMNS)
    body = []
    for r in rows:
        cls = ' class="bad"' if r.status in ("infeasible", "refused") else ""
        shown = [cell(r, key) for key, _ in COLUMNS]
        cells = "".join(f"<td>{html.escape(text)}</td>" for text in shown)
        body.append(f"<tr{cls}>{cells}</tr>")
        for line in r.notes:
            body.append(f'<tr><td colspan="{len(COLUMNS)}" style="text-align:left">'
                        f"{html.escape(r.scheduler)}: {html.escape(line)}</td></tr>")
    image = ""
    if plot is not None and plot.exists():
        data = base64.b64encode(plot.read_bytes()).decode("ascii")
        image = f'<img alt="comparison plot" src="data:image/png;base64,{data}" style="max-width:100%">'
    note_html = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p>streamplace {__version__}, {stamp}. Predicted by the performance model "
            "(throughput: sink input rate at the largest sustainable scale of the source rates; "
            "delivered: at the offered rate, capped by what is sustainable).</p>"
            f"<table><tr>{head}</tr>{''.join(body)}</table>{image}<ul>{note_html}</ul>"
            f"{''.join(sec.html() for sec in sections)}</body></html>")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out


def page(title: str, sections: list[Section], notes: list[str], png_base64: str | None = None) -> str:
    """A self-contained HTML page: title, notes, sections (tables), then an embedded PNG."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    note_html = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    image = (f'<img alt="plot" src="data:image/png;base64,{png_base64}" style="max-width:100%">'
             if png_base64 else "")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p>streamplace {__version__}, {stamp}. Predicted by the performance model.</p><ul>{note_html}</ul>"
            f"{''.join(sec.html() for sec in sections)}{image}</body></html>")
