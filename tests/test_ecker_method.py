"""Ecker et al.'s Tables 2–3 computed their way, and Eq. 1's exact optimum by enumeration (bench/ecker_method.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.bench.ecker_method import Placed, at_rate, exact_eq1, over_default, over_ras, placements
from streamplace.schedulers import create


def test_factors_interpolate_the_default_at_the_same_reservation_and_take_the_nearest_outside() -> None:
    placed = [Placed("round-robin", 0, 100.0, 10.0), Placed("round-robin", 0, 300.0, 30.0),
              Placed("r-storm", 0, 200.0, 40.0),
              Placed("hybrid", 0, 200.0, 40.0), Placed("hybrid", 1, 50.0, 20.0), Placed("hybrid", 2, 400.0, 15.0)]
    f = over_default(placed, "hybrid")
    assert f.placements == 3 and f.mean == pytest.approx((40 / 20 + 20 / 10 + 15 / 30) / 3)
    assert over_default(placed, "hybrid", "all").mean == pytest.approx((40 / 30 + 20 / 30 + 15 / 30) / 3)
    t3 = over_ras(placed, "hybrid")  # only the placement reserving exactly R-Storm's 200 points
    assert t3.placements == 1 and t3.mean == pytest.approx(1.0)
    assert over_ras(placed, "round-robin").mean is None  # no equivalent placement: an empty cell


def test_the_paper_run_has_the_default_over_every_worker_count_and_nine_adaptive_placements() -> None:
    cluster = resolve_cluster("continuum-11")
    placed = placements(resolve_topology("t-r2"), cluster, None)
    by = {s: [p for p in placed if p.scheduler == s] for s in ("round-robin", "r-storm", "hill-climbing")}
    assert 1 <= len(by["round-robin"]) <= 11 and len(by["r-storm"]) == 1 and len(by["hill-climbing"]) == 9
    assert sorted(p.phase for p in by["hill-climbing"]) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert all(p.reservation > 0 and p.throughput > 0 for p in placed)


def test_exact_eq1_is_the_minimum_over_every_placement() -> None:
    cluster = resolve_cluster("continuum-11")
    topo = at_rate(resolve_topology("t-m3"), 80.0)  # three replicas that need three nodes at this rate
    scorer = create("hill-climbing", {}).scorer(topo, cluster, None)
    violations, score, best = exact_eq1(scorer)
    every = np.array(list(itertools.product(range(scorer.n_nodes), repeat=scorer.n_units)))
    s, v = scorer.score_batch(every)
    j = np.lexsort((s, v))[0]
    assert (violations, score) == (int(v[j]), pytest.approx(float(s[j])))
    assert violations == 0 and len(set(best.tolist())) == 3
    with pytest.raises(ValueError, match="over the limit"):
        exact_eq1(scorer, limit=100)
