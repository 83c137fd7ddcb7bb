"""A live run's settings and callbacks, each one typed object built once — by the command line from its flags, by a
test or a benchmark from its constants — instead of nineteen loose parameters (as run_settings.py does for `run`).

``LiveSettings`` checks itself when built: a value out of range is a SpecError naming the field as the caller spells
it (``names``: the command line's flags), before anything starts. ``LiveHooks`` is run's hooks plus ``on_step``, the
loop's own messages; the defaults do nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from streamplace.workflows.run_settings import LONGEST_S, CheckedSettings, RunHooks, is_number

#: the loop's own messages: (seconds since it started, what it did)
StepFn = Callable[[float, str], None]

LIVE_SINKS = ("parquet", "noop")
#: the shortest reasoning interval, seconds: a re-plan is enacted from the checkpoint, which takes seconds itself
SHORTEST_INTERVAL_S = 1.0


@dataclass(frozen=True)
class LiveSettings(CheckedSettings):
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

    def _problems(self) -> list[tuple[str, str, str]]:
        out = []
        for key, low, closed in (("duration_s", 0.0, False), ("interval_s", SHORTEST_INTERVAL_S, True),
                                 ("trigger_s", 0.0, False)):
            value = getattr(self, key)
            if not is_number(value) or not (value >= low if closed else value > low) or value > LONGEST_S:
                out.append((key, f"must be a number of seconds in {'[' if closed else '('}{low:g}, {LONGEST_S:g}], "
                                 f"got {value!r}", f"give {self.name(key)} e.g. 10"))
        return out + self._left_out_or_positive("cores", whole=True) + self._one_of("sink", LIVE_SINKS)


@dataclass(frozen=True)
class LiveHooks(RunHooks):
    """run's hooks (the session, the live page, warnings and notes) and ``on_step``: the loop's own messages, told
    (seconds since it started, what it did); ``progress`` is not used by a live run."""

    on_step: StepFn | None = None
