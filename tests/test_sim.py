"""The simulator with the threshold controller: conservation, billing, determinism, decision rules."""

from __future__ import annotations

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.elastic import make_pattern
from streamplace.elastic.controller import HostView, OperatorView, View
from streamplace.elastic.threshold import ThresholdController
from streamplace.sim import SimConfig, simulate

TOPO = resolve_topology("manufacturing")
VM = resolve_cluster("visp-vm")


def run(pattern: str = "stepwise", minutes: int = 30, seed: int = 0, **cfg: float):
    return simulate(TOPO, VM, make_pattern(pattern, minutes, seed), ThresholdController(),
                    SimConfig(minutes=minutes, seed=seed, **cfg))


def test_items_are_conserved() -> None:
    result = run("two-level", 30)
    for op, (arrived, processed, queued, dropped) in result.conservation.items():
        assert arrived == pytest.approx(processed + queued + dropped, rel=1e-9, abs=1e-9), op
        assert arrived > 0


def test_billing_matches_the_leases() -> None:
    result = run("stepwise", 30, btu_minutes=10, price_per_btu=2.0)
    s = result.summary
    assert s["resource_cost"] == pytest.approx(2.0 * s["paid_btus"])
    assert s["paid_btus"] >= 3 * 1  # the first VM runs all 30 minutes: three 10-minute BTUs at least
    for level in ("realtime", "near_realtime", "relaxed"):
        penalty = (1 - s["compliance"][level]) * s["items_processed"] * 0.0001
        assert s["total_cost"][level] == pytest.approx(s["resource_cost"] + penalty)
    assert s["compliance"]["realtime"] <= s["compliance"]["near_realtime"] <= s["compliance"]["relaxed"]


def test_same_seed_same_run() -> None:
    a, b = run("random-walk-1", 20, seed=3), run("random-walk-1", 20, seed=3)
    assert a.summary == b.summary
    assert (a.series["instances"] == b.series["instances"]).all()


def test_scales_with_the_load() -> None:
    result = run("two-level", 24)
    inst = result.series["instances"]
    low = inst[6:8].mean()  # 2 machines (minutes 0–7)
    high = inst[14:16].mean()  # 8 machines (minutes 8–15)
    assert high > low
    assert result.summary["scaling"]["up"] > 0


def view_with(queue: float, instances: int, hosts: dict[str, HostView]) -> View:
    op = OperatorView("O1", queue, instances, instances, 1500, 64.5, 452)
    return View(0.0, {"O1": op}, hosts, 600, 400, 7168)


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def add_instance(self, operator: str, host: str) -> bool:
        self.calls.append(("add", operator, host))
        return True

    def remove_instance(self, operator: str, host: str | None = None) -> bool:
        self.calls.append(("remove", operator))
        return True

    def lease_host(self) -> str:
        self.calls.append(("lease",))
        return "new-vm"

    def release_host(self, host: str) -> bool:
        self.calls.append(("release", host))
        return True

    def prolong(self, host: str) -> None:
        self.calls.append(("prolong", host))


def host(name: str, used_cpu: float, instances: dict[str, int]) -> HostView:
    return HostView(name, 400, 7168, used_cpu, 500 * sum(instances.values()), 0.0, True, instances, set())


def test_threshold_rules() -> None:
    c = ThresholdController()
    rec = Recorder()
    c.reason(view_with(60, 1, {"a": host("a", 64.5, {"O1": 1})}), rec)
    assert rec.calls == [("add", "O1", "a")]  # queue > 50: one more, on the host with room
    rec = Recorder()
    c.reason(view_with(300, 1, {"a": host("a", 390, {"O1": 1})}), rec)
    assert rec.calls == [("lease",), ("add", "O1", "new-vm"), ("add", "O1", "new-vm")]  # > 250: two; all full: lease
    rec = Recorder()
    c.reason(view_with(0, 2, {"a": host("a", 129, {"O1": 2}), "b": host("b", 0, {})}), rec)
    assert ("remove", "O1") in rec.calls and ("release", "b") in rec.calls  # empty queue, empty VM
    rec = Recorder()
    c.reason(view_with(0, 1, {"a": host("a", 64.5, {"O1": 1})}), rec)
    assert rec.calls == []  # never below one instance
