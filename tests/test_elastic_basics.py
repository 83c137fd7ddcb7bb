"""Issue 6 foundations: arrival patterns, BTU billing, the manufacturing topology."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.elastic import Lease, lease_cost, make_pattern, paid_btus
from streamplace.elastic.billing import remaining_in_btu
from streamplace.errors import SpecError
from streamplace.perf import operator_rates


def test_stepwise_and_two_level_shapes() -> None:
    s = make_pattern("stepwise", 20).machines
    assert s.tolist() == [2] * 4 + [5] * 4 + [8] * 4 + [5] * 4 + [2] * 4
    t = make_pattern("two-level", 20).machines
    assert t[:8].tolist() == [2] * 8 and t[8:16].tolist() == [8] * 8 and t[16] == 2


@pytest.mark.parametrize("name", ["random-walk-1", "random-walk-2"])
def test_random_walk_follows_eq_6(name: str) -> None:
    w = make_pattern(name, 120).machines
    assert w[0] == 4 and w.min() >= 1 and w.max() <= 8
    assert set(np.abs(np.diff(w)).tolist()) <= {0.0, 1.0}
    assert np.array_equal(w, make_pattern(name, 120).machines)  # seeded
    assert not np.array_equal(make_pattern("random-walk-1", 120).machines, make_pattern("random-walk-2", 120).machines)


def test_other_patterns_and_lookup_by_time() -> None:
    assert make_pattern("constant", 5).machines.tolist() == [4] * 5
    lin = make_pattern("linear", 8).machines
    assert lin[0] == 1 and lin[-1] == 8 and (np.diff(lin) >= 0).all()
    pyr = make_pattern("pyramid", 9).machines
    assert pyr[0] == pyr[-1] == 1 and pyr.max() == 8
    p = make_pattern("stepwise", 20)
    assert p.at(0) == 2 and p.at(4 * 60) == 5 and p.at(10_000) == 2


def test_trace_from_csv(tmp_path: Path) -> None:
    good = tmp_path / "t.csv"
    good.write_text("minute,machines\n0,1\n1,3\n2,2\n")
    assert make_pattern(str(good), minutes=3).machines.tolist() == [1, 3, 2]
    with pytest.raises(SpecError, match="the trace has 3 minutes"):
        make_pattern(str(good), minutes=4)
    bad = tmp_path / "b.csv"
    bad.write_text("minute,machines\n0,1\n2,3\n")
    with pytest.raises(SpecError, match="line 3"):
        make_pattern(str(bad), minutes=2)
    with pytest.raises(SpecError, match="unknown arrival pattern"):
        make_pattern("sawtooth")


def test_btu_billing_arithmetic() -> None:
    btu = 600.0
    assert paid_btus(0, btu) == 0
    assert paid_btus(1, btu) == 1 and paid_btus(600, btu) == 1 and paid_btus(601, btu) == 2
    leases = [Lease(0, 300), Lease(100, 1300), Lease(500)]
    btus, cost = lease_cost(leases, now=1900, btu_s=btu, price_per_btu=1.0)
    assert btus == 1 + 2 + 3 and cost == 6.0
    assert remaining_in_btu(Lease(0), now=900, btu_s=btu) == pytest.approx(300)


def test_manufacturing_topology() -> None:
    t = resolve_topology("manufacturing")
    assert {o.id for o in t.sources} == {"S1", "S2", "S3"} and [o.id for o in t.sinks] == ["O8"]
    r = operator_rates(t)
    s2 = 1 / 0.48
    assert r.input[t.index["O1"]] == pytest.approx(s2)
    assert r.input[t.index["O7"]] == pytest.approx(3 * s2)  # O3, O4, O5 each forward every item
    assert r.input[t.index["O9"]] == pytest.approx(s2)  # OEE merges three into one
    assert t.op("O1").cost_ms == 1500 and t.op("O2").selectivity == pytest.approx(1 / 50)
    vm = resolve_cluster("visp-vm").nodes[0]
    assert (vm.cpu, vm.memory_mb) == (400, 7168)
