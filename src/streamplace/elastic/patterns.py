"""Arrival patterns: how many manufacturing machines (load units) emit data at each minute (Hochreiner et al. 2017).

* ``stepwise``: levels 2 → 5 → 8 → 5 → 2 → …, a change every 4 minutes (roughly a sine, Fig. 7A);
* ``two-level``: the lowest and highest of those (2 ↔ 8), a change every 8 minutes (Fig. 7B);
* ``random-walk-1`` / ``random-walk-2``: Eq. 6 — start at 4; each minute −1 if R < 0.4, +1 if R > 0.6,
  unchanged otherwise, bounded to 1…8 (two seeds, Fig. 7C/D);
* ``constant``, ``linear`` (low → high over the run), ``pyramid`` (low → high → low);
* a trace from CSV (``minute,machines``).

A pattern is a pure function of the minute; the ``seed`` only drives the random walks.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from streamplace.errors import Problem, SpecError

STEP_LEVELS = (2, 5, 8, 5)  # one period of the stepwise pattern, 4 minutes per level
LOW, HIGH = 1, 8


@dataclass(frozen=True)
class Pattern:
    """Machines per minute; ``at(t)`` for a time in seconds holds the level of that minute."""

    name: str
    machines: np.ndarray  # one value per minute

    def at(self, seconds: float) -> float:
        minute = int(seconds // 60)
        return float(self.machines[min(max(minute, 0), len(self.machines) - 1)])

    @property
    def minutes(self) -> int:
        return len(self.machines)


def stepwise(minutes: int, seed: int = 0) -> np.ndarray:
    return np.array([STEP_LEVELS[(m // 4) % len(STEP_LEVELS)] for m in range(minutes)], dtype=float)


def two_level(minutes: int, seed: int = 0) -> np.ndarray:
    return np.array([2 if (m // 8) % 2 == 0 else 8 for m in range(minutes)], dtype=float)


def random_walk(minutes: int, seed: int = 0) -> np.ndarray:
    """Eq. 6 of Hochreiner et al. 2017, bounded to 1…8, starting at 4."""
    rng = np.random.default_rng(seed)
    level = 4
    out = []
    for _ in range(minutes):
        out.append(level)
        r = rng.random()
        if r < 0.4:
            level -= 1
        elif r > 0.6:
            level += 1
        level = min(max(level, LOW), HIGH)
    return np.array(out, dtype=float)


def constant(minutes: int, seed: int = 0, level: float = 4.0) -> np.ndarray:
    return np.full(minutes, float(level))


def linear(minutes: int, seed: int = 0) -> np.ndarray:
    return np.round(np.linspace(LOW, HIGH, minutes))


def pyramid(minutes: int, seed: int = 0) -> np.ndarray:
    half = np.linspace(LOW, HIGH, (minutes + 1) // 2)
    return np.round(np.concatenate([half, half[::-1][minutes % 2:]]))[:minutes]


def _random_walk_1(minutes: int, seed: int = 0) -> np.ndarray:
    return random_walk(minutes, 1 + seed)


def _random_walk_2(minutes: int, seed: int = 0) -> np.ndarray:
    return random_walk(minutes, 2 + seed)


PATTERNS: dict[str, Callable[[int, int], np.ndarray]] = {
    "stepwise": stepwise,
    "two-level": two_level,
    "random-walk-1": _random_walk_1,
    "random-walk-2": _random_walk_2,
    "constant": constant,
    "linear": linear,
    "pyramid": pyramid,
}


def make_pattern(name: str, minutes: int = 120, seed: int = 0) -> Pattern:
    """A built-in pattern, or a CSV trace when ``name`` is a path to one."""
    if name in PATTERNS:
        return Pattern(name, PATTERNS[name](minutes, seed))
    if name.endswith(".csv") or Path(name).exists():
        trace = load_trace(name)
        if trace.minutes < minutes:  # its last value would silently stand in for the rest
            raise SpecError([Problem("", f"the trace has {trace.minutes} minutes; the simulation runs {minutes}",
                                     f"simulate at most {trace.minutes} minutes, or extend the trace")], name)
        return trace
    raise SpecError([Problem("pattern", f"unknown arrival pattern {name!r}",
                             f"use one of {', '.join(PATTERNS)} or a CSV file with columns minute,machines")])


def load_trace(path: str | Path) -> Pattern:
    """A trace: CSV with a header ``minute,machines`` (machines ≥ 0, minutes 0, 1, 2, … in order)."""
    p = Path(path)
    if not p.exists():
        raise SpecError([Problem("", "file not found", "give the path of a CSV trace")], str(p))
    try:
        values = _read_trace(p)
    except UnicodeDecodeError as exc:
        raise SpecError([Problem(f"byte {exc.start}", "not UTF-8 text (a binary file?)",
                                 "give a CSV text file with the header minute,machines")], str(p)) from None
    except csv.Error as exc:
        raise SpecError([Problem("", f"not a readable CSV: {exc}", "give a CSV text file with the header "
                                 "minute,machines")], str(p)) from None
    if not values:
        raise SpecError([Problem("", "the trace is empty", "add at least one minute")], str(p))
    return Pattern(p.stem, np.array(values))


def _read_trace(p: Path) -> list[float]:
    """The machines column of a trace file, checked row by row (SpecError naming the line)."""
    values: list[float] = []
    with p.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"minute", "machines"} <= set(reader.fieldnames):
            raise SpecError([Problem("header", f"expected columns minute,machines, got {reader.fieldnames}",
                                     "write a header line: minute,machines")], str(p))
        for row_no, row in enumerate(reader, start=2):
            try:
                minute, machines = int(row["minute"]), float(row["machines"])
            except (TypeError, ValueError):
                raise SpecError([Problem(f"line {row_no}", f"not numbers: {row}", "give an integer minute and a "
                                         "number of machines")], str(p)) from None
            if minute != len(values) or not 0 <= machines < float("inf"):
                raise SpecError([Problem(f"line {row_no}", f"minute {minute}, machines {machines}",
                                         f"minutes must be 0, 1, 2, … in order (expected {len(values)}) and "
                                         "machines a finite number ≥ 0")], str(p))
            values.append(machines)
    return values
