"""The one grammar of parameters given as text: ``[SCOPE.]key=value``, repeatable.

Every command's ``--param`` and every use case's ``params`` mapping reads the same way: ``key=value`` sets a
parameter of what the command runs (a scheduler, a controller or the simulator, a live policy), and a key whose
first dotted part names a scope sets a parameter there — an engine (``spark.trigger_s=2``,
``storm.max_spout_pending=500``, ``ideal.replica_cap=thread``) or, in a comparison, one scheduler
(``r-storm.cpu=hard``). The values stay text here; each owner coerces them to its fields' types
(streamplace.coerce) and checks their ranges.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TypeVar

from streamplace.errors import Problem, SpecError

V = TypeVar("V")


def parse_assignments(items: Iterable[str] | None, where: str = "params") -> dict[str, str]:
    """``["a=1", "spark.trigger_s=2"]`` → ``{"a": "1", "spark.trigger_s": "2"}``; a later key wins. An item
    without ``=`` or without a key is a SpecError on ``where``."""
    params: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SpecError([Problem(where, f"expected key=value, got {item!r}", "write e.g. cpu=hard or "
                                     "spark.trigger_s=2")])
        params[key.strip()] = value.strip()
    return params


def by_scope(params: Mapping[str, V], scopes: Collection[str]) -> tuple[dict[str, dict[str, V]], dict[str, V]]:
    """(``{scope: {key: value}}`` for the keys whose first dotted part is one of ``scopes``, the other keys as
    they are)."""
    scoped: dict[str, dict[str, V]] = {}
    rest: dict[str, V] = {}
    for key, value in params.items():
        head, dot, tail = key.partition(".")
        if dot and head in scopes and tail:
            scoped.setdefault(head, {})[tail] = value
        else:
            rest[key] = value
    return scoped, rest
