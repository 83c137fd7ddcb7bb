"""A live run's settings and callbacks, each one typed object built once — by the command line from its flags, by a
test or a benchmark from its constants — instead of nineteen loose parameters (as run_settings.py does for `run`).

``LiveSettings`` checks itself when built: a value out of range is a SpecError naming the field as the caller spells
it (``names``: the command line's flags), before anything starts. ``LiveHooks`` is run's hooks plus ``on_step``, the
loop's own messages; the defaults do nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from streamplace.errors import Problem, SpecError
from streamplace.workflows.run_settings import LONGEST_S, RunHooks, is_number

#: the loop's own messages: (seconds since it started, what it did)
StepFn = Callable[[float, str], None]

LIVE_SINKS = ("parquet", "noop")
#: the shortest reasoning interval, seconds: a re-plan is enacted from the checkpoint, which takes seconds itself
SHORTEST_INTERVAL_S = 1.0


@dataclass(frozen=True)
class LiveSettings:
    """How one live run is enacted (see the module's docstring)."""

    duration_s: float = 120.0  # seconds to run: (0, LONGEST_S]
    interval_s: float = 10.0  # reasoning interval: [SHORTEST_INTERVAL_S, LONGEST_S]
    trigger_s: float = 1.0  # micro-batch interval: (0, LONGEST_S]
    cores: int | None = None  # local Spark's cores; None: this machine's
    sink: Literal["parquet", "noop"] = "parquet"
    out_dir: Path = Path("live-out")  # sink output and checkpoint
    #: the sources are run's bounded ones (rows arrive one by one, they can stall) rather than Spark's rate source
    bounded_sources: bool = False
    title: str = ""  # the live page's title ("" : the topology, policy and master)
    #: how errors name a field, where the caller spells it otherwise ({"interval_s": "--interval"})
    names: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problems = [Problem(self.name(key), why, fix) for key, why, fix in self._problems()]
        if problems:
            raise SpecError(problems)

    def name(self, key: str) -> str:
        """How the caller spells field ``key``."""
        return self.names.get(key, key)

    def _problems(self) -> list[tuple[str, str, str]]:
        out = []
        for key, low, closed in (("duration_s", 0.0, False), ("interval_s", SHORTEST_INTERVAL_S, True),
                                 ("trigger_s", 0.0, False)):
            value = getattr(self, key)
            if not is_number(value) or not (value >= low if closed else value > low) or value > LONGEST_S:
                out.append((key, f"must be a number of seconds in {'[' if closed else '('}{low:g}, {LONGEST_S:g}], "
                                 f"got {value!r}", f"give {self.name(key)} e.g. 10"))
        if self.cores is not None and (not is_number(self.cores) or self.cores <= 0 or not math.isfinite(self.cores)
                                       or self.cores != int(self.cores)):
            out.append(("cores", f"must be a whole number > 0 (or left out), got {self.cores!r}",
                        f"give {self.name('cores')} a positive value, or leave it out"))
        if self.sink not in LIVE_SINKS:
            out.append(("sink", f"must be one of {', '.join(LIVE_SINKS)}, got {self.sink!r}",
                        f"give {self.name('sink')} {' or '.join(LIVE_SINKS)}"))
        return out


@dataclass(frozen=True)
class LiveHooks(RunHooks):
    """run's hooks (the session, the live page, warnings and notes) and ``on_step``: the loop's own messages, told
    (seconds since it started, what it did); ``progress`` is not used by a live run."""

    on_step: StepFn | None = None
