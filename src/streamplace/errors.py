"""Errors shared by every layer.

Every user-facing error names *where* the problem is (file and field path),
*what* is wrong and *how to fix it*, so a new user never needs a stack trace.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One validation finding: a field path, what is wrong, and the fix."""

    path: str
    message: str
    fix: str = ""

    def render(self, source: str | None = None) -> str:
        where = f"{source}: " if source else ""
        field = f"{self.path}: " if self.path else ""
        fix = f" (fix: {self.fix})" if self.fix else ""
        return f"{where}{field}{self.message}{fix}"


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
