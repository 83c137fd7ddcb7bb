"""Errors shared by every layer.

Every user-facing error names *where* the problem is (file and field path),
*what* is wrong and *how to fix it*, so a new user never needs a stack trace.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: a parameter named inside a message or a fix: ``[[master]]`` reads "master" from the library and "--master" on
#: the command line (cli/_common.in_cli_terms renders it), so library code names fields, never flags
_FIELD = re.compile(r"\[\[([A-Za-z_][\w.]*)\]\]")


def named(text: str, name_of: Callable[[str], str] = lambda f: f) -> str:
    """``text`` with every marked parameter written as ``name_of(field)``: the field's own name by default, its
    option on the command line."""
    return _FIELD.sub(lambda m: name_of(m[1]), text)


@dataclass(frozen=True)
class Problem:
    """One validation finding: a field path, what is wrong, and the fix. The message and the fix may name other
    parameters as ``[[field]]`` (see :func:`named`)."""

    path: str
    message: str
    fix: str = ""

    def render(self, source: str | None = None) -> str:
        where = f"{source}: " if source else ""
        field = f"{self.path}: " if self.path else ""
        fix = f" (fix: {named(self.fix)})" if self.fix else ""
        return f"{where}{field}{named(self.message)}{fix}"


class StreamplaceError(Exception):
    """Base class of all errors the CLI reports without a traceback."""


class ModelError(StreamplaceError, ValueError):
    """A model object was built from inconsistent data."""

    def __init__(self, problems: list[Problem], source: str | None = None):
        self.problems = list(problems)
        self.source = source
        super().__init__(self._text())

    def _text(self) -> str:
        lines = [p.render(self.source) for p in self.problems]
        if len(lines) == 1:
            return lines[0]
        return f"{len(lines)} problems:\n" + "\n".join(f"  - {line}" for line in lines)

    def with_source(self, source: str) -> ModelError:
        return ModelError(self.problems, source)


class SpecError(ModelError):
    """A spec file could not be read or does not describe a valid object."""


class RateDivergenceError(StreamplaceError, ValueError):
    """Rates on a cycle grow without bound (loop gain >= 1)."""


class SchedulerParamError(StreamplaceError, ValueError):
    """A scheduler was given an unknown or ill-typed parameter."""
