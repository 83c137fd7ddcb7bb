"""Turn ``key=value`` text from the command line into the typed value a parameter declares.

Shared by the schedulers' and the elastic controllers' parameters. Supports
bool, int, float, str, Literal choices, optional (``X | None``, written ``none``)
and tuples (comma-separated, ``tuple[float, ...]`` or fixed length). A value that
does not fit raises the caller's error with a message that says what was expected.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal


def coerce_value(value: Any, hint: Any, where: str, error: Callable[[str], Exception]) -> Any:
    """``value`` as type ``hint``; ``error(message)`` is raised when it does not fit."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        is_none = value is None or (isinstance(value, str) and value.lower() in ("none", "null"))
        if is_none and type(None) in args:
            return None
        last: Exception | None = None
        for a in args:
            if a is type(None):
                continue
            try:
                return coerce_value(value, a, where, error)
            except Exception as exc:  # the caller's error type
                last = exc
        raise last or error(f"bad value for {where}")
    if origin is Literal:
        if value in args:
            return value
        raise error(f"{where} must be one of {', '.join(map(str, args))}, got {value!r}")
    if origin in (dict, Mapping) and not isinstance(value, Mapping):
        raise error(f"{where} is a mapping, not one value (fix: set its keys one at a time: {where}.KEY=VALUE)")
    if origin is tuple:
        if isinstance(value, tuple):
            return value
        parts = [p for p in str(value).split(",") if p.strip()]
        fixed = not (len(args) == 2 and args[1] is Ellipsis)
        if fixed and len(parts) != len(args):
            raise error(f"{where} expects {len(args)} comma-separated numbers, got {value!r}")
        return tuple(coerce_value(p.strip(), args[k] if fixed else args[0], where, error)
                     for k, p in enumerate(parts))
    try:
        if hint is bool:
            if isinstance(value, bool):
                return value
            text = str(value).lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if hint in (int, float, str):
            if hint is not str and isinstance(value, bool):
                raise ValueError
            result = hint(value)
            if hint is int and isinstance(value, str) and str(result) != value.strip():
                raise ValueError
            if hint is not float or math.isfinite(result):
                return result
    except (TypeError, ValueError):
        kind = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}.get(
            hint, f"a {getattr(hint, '__name__', hint)}")
        raise error(f"{where} expects {kind}, got {value!r}") from None
    if hint is float:
        raise error(f"{where} expects a finite number, got {value!r}")
    return value
