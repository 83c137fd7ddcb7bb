"""The live page's HTML (one Jinja2 template): served during a run, or written whole with its state inside.

Served, the page asks the server for ``state.json`` every second and for ``picture.svg`` when the plan
changes; written (``static_page``), the same page carries the last state and picture in itself, so it opens
from a file after the run with no server. The page's script draws the charts as inline SVG: four series and a
log do not need a charting library (and the page must work with no network).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jinja2
import markupsafe

from streamplace._version import __version__
from streamplace.model.plan import jsonable


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.PackageLoader("streamplace.page", "templates"), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    return env.get_template("live.html.j2")


def _json_for_script(value: Any) -> markupsafe.Markup:
    """JSON that can sit inside a <script> element: '<', '>' and '&' escaped so no value can end it."""
    text = json.dumps(value, allow_nan=False, default=str)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return markupsafe.Markup(text)


def _inline_svg(svg: str | None) -> markupsafe.Markup:
    """The SVG element alone (no XML prolog): our own drawing (page/placement), inserted as is."""
    if not svg:
        return markupsafe.Markup("")
    start = svg.find("<svg")
    return markupsafe.Markup(svg[start:] if start >= 0 else svg)


def live_page(title: str, refresh_s: float = 1.0) -> str:
    """The served page: it fetches its state and picture from the server that serves it."""
    return _template().render(title=title, version=__version__, state=_json_for_script(None),
                              picture=_inline_svg(None), refresh_ms=int(1000 * refresh_s))


def static_page(state: dict[str, Any], picture_svg: str | None) -> str:
    """The page with ``state`` and the picture inside it: opens from a file, no server needed."""
    return _template().render(title=state.get("title", "streamplace run"), version=__version__,
                              state=_json_for_script(jsonable(state)), picture=_inline_svg(picture_svg), refresh_ms=0)


def state_json(state: dict[str, Any]) -> bytes:
    """The state as the server sends it (NaN and infinities become null: JSON has neither)."""
    return json.dumps(jsonable(state), allow_nan=False, default=str).encode("utf-8")
