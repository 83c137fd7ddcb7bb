"""One rule for the verdict rows of docs/reproduction.md: the paper's value, ours, and what that makes of it.

* ``reproduced (within 10 %)``: ours within 10 % of the paper's value (for a gain, of its ratio 1 + gain);
* ``direction only``: on the same side of the pivot as the paper's (above or below the baseline: 0 for a gain,
  1 for a factor), but further off;
* ``not reproduced``: on the other side, or level where the paper has a difference.

Every reproduction script judges by these functions, so one rule holds everywhere. Where the paper gives a
range (Nasiri et al.'s "7 to 44 %"), ours is within 10 % of it when it is within 10 % of some value in it;
where it gives no size that can be set against ours (its values lost, or a different measure: the minimum
latency where ours is the worst path), only the rule's second half applies (``side``); a figure that
summarizes several of ours (one per topology) takes the worst of their verdicts (``worst``); a figure with
nothing of ours to set against it (not attempted, or its values lost and ours assumed) is not reproduced, with
the reason (``not_judged``).
"""

from __future__ import annotations

from collections.abc import Iterable

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


def gain(ours: float, paper: float, paper_hi: float | None = None) -> str:
    """A relative gain (0.5 for +50 %; −0.04 for 4 % below) against the paper's, or its range ``paper`` to
    ``paper_hi`` (both of one sign or zero): its ratio 1 + gain within 10 % of the paper's (of some value in the
    range), the same sign, or not."""
    lo, hi = (paper, paper) if paper_hi is None else (min(paper, paper_hi), max(paper, paper_hi))
    if 0.9 * (1 + lo) <= 1 + ours <= 1.1 * (1 + hi):
        return REPRODUCED
    sign = hi if abs(hi) >= abs(lo) else lo
    if ours * sign > 0:
        return DIRECTION
    return NOT


def side(ours: float, pivot: float, paper_above: bool) -> str:
    """The rule's second half alone, where the paper's size cannot be set against ours (its values lost, or a
    measure other than ours): on the paper's side of ``pivot`` (above it or below), direction only; else not
    reproduced. Never ``reproduced``: nothing says how near."""
    return DIRECTION if (ours > pivot if paper_above else ours < pivot) else NOT


def not_judged(reason: str) -> str:
    """A figure nothing of ours can be set against, with why: not attempted (a behaviour no model here has, such
    as Storm's start-up transient) or not comparable (the paper's values lost and ours assumed in their place, as
    Nasiri et al.'s Table 4 machine counts). ``not reproduced (REASON)``, so ``worst`` ranks it last and a
    reader sees what is missing; the reason must be given."""
    if not reason.strip():
        raise ValueError("not_judged needs the reason nothing of ours can be set against the paper's figure")
    return f"{NOT} ({reason.strip()})"


def worst(verdicts: Iterable[str]) -> str:
    """The weakest of several verdicts (a figure that sums up several of ours): not reproduced before direction
    only before reproduced. Each is one of this module's (a reason in brackets after it is kept)."""
    return min(verdicts, key=lambda v: 0 if v.startswith(NOT) else 1 if v.startswith(DIRECTION) else 2)


def exact(ours: object, paper: object) -> str:
    """A count or a yes/no the paper states: equal or not."""
    return "reproduced" if ours == paper else NOT


def pct(g: float) -> str:
    """A gain as the tables print it: +38 %."""
    text = f"{g * 100:+.0f} %".replace("-", "−")
    return "0 %" if text in ("+0 %", "−0 %") else text
