"""A closed (or left-open) interval that a numeric parameter must lie in, and how to say it.

Used by the tables of parameter ranges (schedulers/ranges.py for the schedulers, sim/factory.py for the
elastic controllers and the simulator), so every refusal states the range the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Range:
    lo: float
    hi: float
    lo_open: bool = False  # lo itself excluded
    integer: bool = False

    def contains(self, value: float) -> bool:
        above = value > self.lo if self.lo_open else value >= self.lo
        return above and value <= self.hi

    def admits(self, value: float) -> bool:
        """A finite number inside the interval, and whole where the range is of integers."""
        return (math.isfinite(value) and self.contains(value)
                and (not self.integer or float(value).is_integer()))

    def text(self) -> str:
        lo = f"{self.lo:g}" if not self.integer else f"{int(self.lo):,}"
        hi = f"{self.hi:g}" if not self.integer else f"{int(self.hi):,}"
        return f"{'(' if self.lo_open else '['}{lo}, {hi}]"
