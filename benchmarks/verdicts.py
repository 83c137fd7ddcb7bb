"""One rule for the verdict rows of docs/reproduction.md: the paper's value, ours, and what that makes of it.

* ``reproduced (within 10 %)``: ours within 10 % of the paper's value (for a gain, of its ratio 1 + gain);
* ``direction only``: on the same side of the pivot as the paper's (above or below the baseline: 0 for a gain,
  1 for a factor), but further off;
* ``not reproduced``: on the other side, or level where the paper has a difference.

repro_rstorm_time.py, repro_nasiri.py and repro_ecker_figs.py keep their own variants (±10 points for a gain;
a range of the paper's), each stated in their blocks.
"""

from __future__ import annotations

REPRODUCED = "reproduced (within 10 %)"
DIRECTION = "direction only"
NOT = "not reproduced"


def value(ours: float, paper: float, pivot: float | None = None) -> str:
    """A figure against the paper's: within 10 % of it, on the same side of ``pivot``, or not. Without a pivot (a
    rate, a count: no side to be on) a miss says how far: ``not reproduced (×5.6)``."""
    if abs(ours - paper) <= 0.10 * abs(paper):
        return REPRODUCED
    if pivot is None:
        return f"{NOT} (×{ours / paper:.2g})" if paper else NOT
    if (ours - pivot) * (paper - pivot) > 0:
        return DIRECTION
    return NOT


def gain(ours: float, paper: float) -> str:
    """A relative gain (0.5 for +50 %) against the paper's: its ratio 1 + gain within 10 %, the same sign, or not."""
    if abs((1 + ours) - (1 + paper)) <= 0.10 * (1 + paper):
        return REPRODUCED
    if ours * paper > 0:
        return DIRECTION
    return NOT


def exact(ours: object, paper: object) -> str:
    """A count or a yes/no the paper states: equal or not."""
    return "reproduced" if ours == paper else NOT


def pct(g: float) -> str:
    """A gain as the tables print it: +38 %."""
    text = f"{g * 100:+.0f} %".replace("-", "−")
    return "0 %" if text in ("+0 %", "−0 %") else text
