"""The Python API's arguments, checked once where they come in: a value of the wrong type is a
:class:`~streamplace.errors.SpecError` naming the argument, the type it expects, the type it got and the fix —
never a ``TypeError``, ``AttributeError`` or ``KeyError`` from deep inside (a cluster passed as ``5`` used to fail
in a regular expression of ``bench/clusters.py``, parameters passed as text in ``params.py``).

The public functions (``streamplace.api``; their use cases in ``streamplace.workflows``) call these first; the
values they let through are the ones the functions' annotations name. Nothing here checks ranges or contents:
the loaders and the schedulers do, with the field's path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from streamplace.errors import Problem, SpecError
from streamplace.perf.engines import EngineSettings


def wrong_type(argument: str, value: Any, expected: str, fix: str) -> SpecError:
    """The error of ``argument`` given ``value``, of another type than ``expected``."""
    got = type(value).__name__
    shown = f" {value!r}" if isinstance(value, int | float | str | bytes | Path) and len(repr(value)) <= 40 else ""
    return SpecError([Problem(argument, f"expects {expected}, got {got}{shown}", fix)])


def spec(value: Any, argument: str, model: type | None = None, what: str = "") -> None:
    """``value`` is a ``model`` object (where one is given), a built-in name, a path (text or ``Path``; ``"-"``:
    standard input) or a mapping; ``what``: the kind of spec, where ``argument`` does not say it."""
    kinds: tuple[type, ...] = (str, Path, Mapping) + ((model,) if model is not None else ())
    if not isinstance(value, kinds):
        head = f"a {model.__name__}, " if model is not None else f"a {what} spec: " if what else ""
        loaded = f"sp.load_{argument}(...), " if model is not None else ""
        raise wrong_type(argument, value, f"{head}a built-in name, a YAML/JSON path or a mapping",
                         f"pass {loaded}a built-in name (`streamplace bench list`), the path of a spec file or "
                         "its contents as a dict")


def optional_spec(value: Any, argument: str, model: type) -> None:
    """As :func:`spec`, None allowed."""
    if value is not None:
        spec(value, argument, model)


def parameters(value: Any, argument: str = "params") -> None:
    """``value`` is None or a mapping from parameter names (text) to values, the names of nested mappings
    (``{"weights": {"cpu": 2}}``, ``{"r-storm": {"cpu": "hard"}}``) text too."""
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise wrong_type(argument, value, "a mapping of parameter names to values (or None)",
                         f"write e.g. {argument}={{'cpu': 'hard', 'spark.trigger_s': 2}}")
    for key, item in value.items():
        if not isinstance(key, str):
            raise wrong_type(f"{argument}[{key!r}]", key, "a parameter name (text)",
                             "name every parameter with text, e.g. {'cpu': 'hard'} or {'weights': {'cpu': 2}}")
        if isinstance(item, Mapping):
            parameters(item, f"{argument}.{key}")


def text(value: Any, argument: str, fix: str, optional: bool = False) -> None:
    """``value`` is text (or None where ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise wrong_type(argument, value, "text" + (" (or None)" if optional else ""), fix)


def names(value: Any, argument: str, fix: str) -> None:
    """``value`` is None or a list (tuple, …) of text: a single string is refused, not read letter by letter."""
    if value is None:
        return
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise wrong_type(argument, value, "a list of names (or None)", fix)
    for k, item in enumerate(value):
        if not isinstance(item, str):
            raise wrong_type(f"{argument}[{k}]", item, "a name (text)", fix)


def number(value: Any, argument: str, fix: str, optional: bool = False) -> None:
    """``value`` is a finite int or float, not a bool (or None where ``optional``)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise wrong_type(argument, value, "a finite number" + (" (or None)" if optional else ""), fix)


def flag(value: Any, argument: str) -> None:
    """``value`` is True or False."""
    if not isinstance(value, bool):
        raise wrong_type(argument, value, "True or False", f"write {argument}=True or {argument}=False")


def path(value: Any, argument: str, fix: str, optional: bool = True) -> None:
    """``value`` is a path (text or ``Path``), or None where ``optional``."""
    if value is None and optional:
        return
    if not isinstance(value, str | Path):
        raise wrong_type(argument, value, "a path (text or pathlib.Path)" + (" or None" if optional else ""), fix)


def callback(value: Any, argument: str, optional: bool = False) -> None:
    """``value`` is callable (or None where ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, Callable):  # type: ignore[arg-type]
        raise wrong_type(argument, value, "a function of one argument" + (" (or None)" if optional else ""),
                         f"pass e.g. {argument}=print")


def engine(value: Any, argument: str = "engine") -> None:
    """``value`` is an engine's name, an EngineSettings or None."""
    if value is not None and not isinstance(value, str | EngineSettings):
        raise wrong_type(argument, value, "an engine's name (spark, storm, ideal), an EngineSettings or None",
                         "write e.g. engine='spark', or sp.engine_settings('storm', params={...})")


def streaming_query(value: Any, argument: str = "query") -> None:
    """``value`` is a running Structured Streaming query (classic or Spark Connect): its class has ``id``,
    ``runId`` and ``awaitTermination``. Checked on the class, so nothing is asked of the JVM, and before anything
    would open a Spark session."""
    if not all(hasattr(type(value), name) for name in ("id", "runId", "awaitTermination")):
        raise wrong_type(argument, value, "a running StreamingQuery",
                         "pass what df.writeStream...start() returned")
