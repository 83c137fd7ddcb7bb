"""benchmarks/verdicts.py: the one verdict rule every reproduction script's tables use (within 10 %: reproduced;
the paper's side of the pivot: direction only; else not reproduced), with its range, side-only and worst-of forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scripts import load_script

V = load_script(Path(__file__).resolve().parents[1] / "benchmarks" / "verdicts.py")


@pytest.mark.parametrize(("ours", "paper", "expected"), [
    (0.33, 0.30, V.REPRODUCED),  # 1.33 within 10 % of 1.30
    (0.35, 0.47, V.REPRODUCED),  # 1.35 ≥ 0.9 × 1.47 = 1.323: within 10 % although 12 points off
    (0.24, 0.47, V.DIRECTION),
    (2.00, 0.50, V.DIRECTION),
    (-0.03, 0.50, V.NOT),
    (0.0, 0.50, V.NOT),  # level where the paper has a gain
    (-0.125, -0.02, V.DIRECTION),  # 12.5 % below the optimum against 2 %: 0.875 < 0.9 × 0.98
    (-0.101, -0.02, V.REPRODUCED),  # 0.899 ≥ 0.882
])
def test_a_gain_is_judged_by_its_ratio(ours: float, paper: float, expected: str) -> None:
    assert V.gain(ours, paper) == expected


def test_a_range_is_met_within_10_percent_of_any_value_in_it() -> None:
    assert V.gain(0.42, 0.07, 0.44) == V.REPRODUCED
    assert V.gain(0.58, 0.07, 0.44) == V.REPRODUCED  # 1.58 ≤ 1.1 × 1.44
    assert V.gain(0.60, 0.07, 0.44) == V.DIRECTION
    assert V.gain(-0.04, 0.07, 0.44) == V.NOT  # 0.96 < 0.9 × 1.07 = 0.963, and below 0
    assert V.gain(-0.03, 0.07, 0.44) == V.REPRODUCED  # the rule's own looseness near 0: 0.97 ≥ 0.963
    # a gap range 0 to 4 % below: its sign is the non-zero end's
    assert V.gain(-0.107, -0.0, -0.04) == V.REPRODUCED
    assert V.gain(-0.20, -0.0, -0.04) == V.DIRECTION
    # a point range is the point
    assert V.gain(0.28, 0.44, 0.44) == V.gain(0.28, 0.44) == V.DIRECTION


def test_side_never_says_reproduced() -> None:
    assert V.side(1.06, 1.0, paper_above=True) == V.DIRECTION
    assert V.side(1.0, 1.0, paper_above=True) == V.NOT
    assert V.side(-4.70, 1.0, paper_above=True) == V.NOT
    assert V.side(-0.34, 0.0, paper_above=False) == V.DIRECTION
    assert V.side(0.10, 0.0, paper_above=False) == V.NOT


def test_worst_takes_the_weakest_and_keeps_its_reason() -> None:
    assert V.worst([V.REPRODUCED, V.DIRECTION, V.REPRODUCED]) == V.DIRECTION
    assert V.worst([V.DIRECTION, f"{V.NOT} (×5.6)", V.REPRODUCED]) == f"{V.NOT} (×5.6)"
    assert V.worst(["reproduced", V.REPRODUCED]) in ("reproduced", V.REPRODUCED)
    assert V.worst([V.REPRODUCED]) == V.REPRODUCED


def test_value_against_a_pivot_and_without_one() -> None:
    assert V.value(1.14, 2.11, pivot=1.0) == V.DIRECTION
    assert V.value(0.95, 2.11, pivot=1.0) == V.NOT
    assert V.value(2.0, 2.11, pivot=1.0) == V.REPRODUCED
    assert V.value(5.6, 1.0) == f"{V.NOT} (×5.6)"


def test_not_judged_says_why_and_ranks_last() -> None:
    fig4 = V.not_judged("not attempted: no model here has Storm's start-up")
    assert fig4 == "not reproduced (not attempted: no model here has Storm's start-up)"
    assert V.not_judged(" not comparable: values lost ") == "not reproduced (not comparable: values lost)"
    assert V.worst([V.REPRODUCED, fig4, V.DIRECTION]) == fig4
    with pytest.raises(ValueError, match="reason"):
        V.not_judged("  ")
