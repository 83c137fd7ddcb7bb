"""A run's settings and its callbacks, each one typed object built once — by the command line from its flags, by
the API from its arguments, by the demo from its constants — instead of two dozen loose parameters.

``RunSettings`` checks itself when built: a value out of range is a SpecError naming the field as the caller spells
it (``names``: the command line's flags), before anything starts. ``RunHooks`` holds what the caller does beside the
run (the Spark session, the live page, warnings and notes, progress); the defaults do nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from streamplace.errors import Problem, SpecError
from streamplace.model.cluster import Cluster
from streamplace.workflows.instance import Say, silent

#: progress of the measured pipeline: seconds done of the total (warm-up and measured window)
ProgressFn = Callable[[float, float], None]
#: the live page (page/live_run.RunPage) for (title, seconds, the cluster it runs on, the file it is written to),
#: or None: no page
PageOpener = Callable[[str, float, Cluster, Path], Any]
#: the SparkSession of a run whose Spark log goes to the given file
SessionOpener = Callable[[Path], Any]

#: the longest warm-up or measured window a run takes, seconds (a day)
LONGEST_S = 86_400.0
SINKS = ("parquet", "noop", "memory")
#: at most this much longer warm-up while the rows that arrived during the start are still queued (a window that
#: measures their catch-up measures the start, not the plan): `run`'s and the demo's default
SETTLE_MAX_S = 60.0
#: the backlog at which the start's queue counts as processed: below capacity every row that has arrived when a
#: batch is planned is admitted, so a settled source reports (almost) none
SETTLED_ROWS = 1
PLACEMENTS = ("plan", "spark")


class CheckedSettings:
    """What a frozen settings dataclass (RunSettings, live_settings.LiveSettings) shares: it checks itself when built
    (``_problems``: (field, why, fix) each) and raises one SpecError naming every bad field as the caller spells it
    (``names``, a field of the dataclass); the common checks are here."""

    names: Mapping[str, str]

    def __post_init__(self) -> None:
        problems = [Problem(self.name(key), why, fix) for key, why, fix in self._problems()]
        if problems:
            raise SpecError(problems)

    def name(self, key: str) -> str:
        """How the caller spells field ``key``."""
        return self.names.get(key, key)

    def _problems(self) -> list[tuple[str, str, str]]:
        raise NotImplementedError

    def _left_out_or_positive(self, key: str, whole: bool = False) -> list[tuple[str, str, str]]:
        """Field ``key`` is None or a finite number > 0 (``whole``: a whole one)."""
        value = getattr(self, key)
        if value is None or (is_number(value) and value > 0 and math.isfinite(value)
                             and (not whole or value == int(value))):
            return []
        return [(key, f"must be {'a whole number' if whole else 'a finite number'} > 0 (or left out), got {value!r}",
                 f"give {self.name(key)} a positive value, or leave it out")]

    def _one_of(self, key: str, allowed: tuple[str, ...]) -> list[tuple[str, str, str]]:
        """Field ``key`` is one of ``allowed``."""
        value = getattr(self, key)
        if value in allowed:
            return []
        return [(key, f"must be one of {', '.join(allowed)}, got {value!r}",
                 f"give {self.name(key)} {', '.join(allowed[:-1])} or {allowed[-1]}")]


@dataclass(frozen=True)
class RunSettings(CheckedSettings):
    """How one run is enacted and measured (see the module's docstring)."""

    duration_s: float = 60.0  # measured window, after the warm-up: (0, LONGEST_S]
    warmup_s: float = 15.0  # [0, LONGEST_S]
    trigger_s: float | None = None  # None: chosen from the model (perf/admission.py)
    max_rate: float | None = None  # tuples/s the sources admit together at most; None: what the model sustains
    cores: int | None = None  # local Spark's cores; None: this machine's
    placement: Literal["plan", "spark"] = "plan"  # on a cluster: every replica on its node, or Spark's own choice
    sink: Literal["parquet", "noop", "memory"] = "parquet"
    out_dir: Path | None = None  # None: run-out/TOPOLOGY-DIGEST
    #: the warm-up is prolonged while the sources' backlog holds more than this many rows, for at most
    #: ``settle_max_s`` (None: not prolonged); never for an overloaded run, whose backlog only grows
    settle_rows: int | None = None
    settle_max_s: float = 0.0
    #: how errors name a field, where the caller spells it otherwise ({"max_rate": "--max-rate"})
    names: Mapping[str, str] = field(default_factory=dict)

    def _problems(self) -> list[tuple[str, str, str]]:
        out = []
        for key, low_open in (("duration_s", True), ("warmup_s", False)):
            value = getattr(self, key)
            if not is_number(value) or not (value > 0 if low_open else value >= 0) or value > LONGEST_S:
                out.append((key, f"must be a number of seconds in {'(0' if low_open else '[0'}, {LONGEST_S:g}], got "
                                 f"{value!r}", f"give {self.name(key)} a duration, e.g. 30"))
        for key in ("trigger_s", "max_rate", "settle_rows", "cores"):
            out += self._left_out_or_positive(key, whole=key in ("cores", "settle_rows"))
        if not is_number(self.settle_max_s) or not 0 <= self.settle_max_s <= LONGEST_S:
            out.append(("settle_max_s", f"must be a number of seconds in [0, {LONGEST_S:g}], got "
                                        f"{self.settle_max_s!r}", f"give {self.name('settle_max_s')} e.g. 60"))
        return out + self._one_of("placement", PLACEMENTS) + self._one_of("sink", SINKS)


def is_number(value: Any) -> bool:
    """A real number (not a bool, not NaN)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


@dataclass(frozen=True)
class RunHooks:
    """What the caller does beside a run: ``session`` opens the SparkSession (its log in the given file; None: the
    cluster's or local Spark's own, spark/cluster/connect.session_for), ``open_page`` the live page (None: no page),
    ``on_warning`` / ``on_info`` say a line, ``progress`` is told (seconds done, total) from the pipeline's start."""

    session: SessionOpener | None = None
    open_page: PageOpener | None = None
    on_warning: Say = silent
    on_info: Say = silent
    progress: ProgressFn | None = None
