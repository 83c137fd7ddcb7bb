"""Every scheduler keeps the hard constraints on random instances, and its time limit (issue 21, item 1).

The check is benchmarks/fuzz_schedulers.py's ``hard_violations``: computed from the plan's replica map
alone, independently of model/constraints.py, which the schedulers themselves use.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamplace.bench.random_instances import random_instance
from streamplace.errors import StreamplaceError
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.schedulers import create, scheduler_names
from tests.scripts import load_script

fuzz = load_script(Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_schedulers.py")


@pytest.mark.parametrize("name", scheduler_names())
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_a_plan_called_ok_keeps_every_hard_constraint(name: str, seed: int) -> None:
    topology, cluster = random_instance(seed)
    scheduler = create(name, {"time_limit_s": 2.0} | fuzz.EXTRA_PARAMS.get(name, {}))
    try:
        plan = scheduler.plan(topology, cluster)
    except StreamplaceError as exc:  # a refusal names its reason (exhaustive: the search is too large)
        assert "fix" in str(exc)
        return
    if plan.status == "infeasible":
        assert plan.explanation and not plan.predicted
        return
    broken = fuzz.hard_violations(plan, topology, cluster, not type(scheduler).chooses_parallelism,
                                  bool(scheduler.cpu_hard))
    assert broken == [], f"{name} seed {seed}: {plan.status} but {broken}"


def tight_memory() -> tuple[Topology, Cluster]:
    """Three replicas of 600 MB and three nodes of 700 MB: one replica per node is the only fit."""
    ops = (Operator("src", "source", rate=10.0, memory_mb=600, replicas=1, cost_ms=0.1),
           Operator("mid", memory_mb=600, replicas=1, cost_ms=0.1),
           Operator("snk", "sink", memory_mb=600, replicas=1, cost_ms=0.1))
    topology = Topology("tight", ops, (Stream("src", "mid"), Stream("mid", "snk")))
    nodes = tuple(Node(f"n{k}", cpu=400, memory_mb=700) for k in range(3))
    return topology, Cluster("three", nodes, Links())


@pytest.mark.parametrize("name", ["hill-climbing", "ant-system", "hybrid", "odrp"])
def test_searches_that_like_co_location_still_keep_memory(name: str) -> None:
    """Co-locating the whole chain is what these objectives prefer; memory forbids it, so each replica gets
    its own node (these schedulers broke memory on 96 of 2,880 random runs before)."""
    topology, cluster = tight_memory()
    plan = create(name, fuzz.EXTRA_PARAMS.get(name, {})).plan(topology, cluster)
    assert plan.status in ("ok", "timeout"), plan.explanation
    assert sorted(len(per) for per in plan.replicas.values()) == [1, 1, 1]
    assert len(plan.nodes_used()) == 3


def test_a_resource_blind_placement_is_reported_with_what_it_breaks() -> None:
    """Round robin (Storm's EvenScheduler) ignores memory by design: its placement is not called ok, and the
    explanation says which node it overloads by how much."""
    topology, cluster = tight_memory()
    topology = Topology(topology.name, tuple(Operator(o.id, o.kind, rate=o.rate, memory_mb=o.memory_mb,
                                                      replicas=2) for o in topology.operators), topology.streams)
    cluster = Cluster("big-small", (Node("big", cpu=400, memory_mb=4000), Node("small", cpu=400, memory_mb=700)),
                      Links())
    plan = create("round-robin").plan(topology, cluster)
    assert plan.status == "infeasible" and not plan.predicted
    assert any("1,800 MB on small, which has 700 MB" in line for line in plan.explanation)


@pytest.mark.parametrize("name", scheduler_names())
def test_every_scheduler_keeps_its_time_limit(name: str) -> None:
    """A large instance with a 1 s limit: the process's CPU time for the plan stays within the limit plus the
    work around the search (checks, prediction) — CPU time, so a busy machine does not fail it."""
    rng = np.random.default_rng(7)
    nodes = tuple(Node(f"n{k}", cpu=float(rng.choice([200, 400, 800])), memory_mb=8192,
                       rack=f"r{k % 4}", speedup=float(rng.uniform(0.5, 2))) for k in range(40))
    ops = [Operator("o0", "source", rate=200.0, cost_ms=1.0, replicas=3, max_replicas=8)]
    ops += [Operator(f"o{k}", cost_ms=float(rng.uniform(0.5, 4)), replicas=3, max_replicas=8) for k in range(1, 9)]
    ops += [Operator("o9", "sink", cost_ms=0.5, replicas=2, max_replicas=8)]
    streams = (*(Stream(f"o{k}", f"o{k + 1}") for k in range(9)), Stream("o2", "o5", "key", "k"))
    topology, cluster = Topology("wide", tuple(ops), streams), Cluster("forty", nodes, Links())
    scheduler = create(name, {"time_limit_s": 1.0} | fuzz.EXTRA_PARAMS.get(name, {}))
    cpu0 = time.process_time()
    try:
        plan = scheduler.plan(topology, cluster)
    except StreamplaceError:  # refused up front (exhaustive: too many placements)
        return
    used = time.process_time() - cpu0
    assert used < 1.0 + 4.0, f"{name}: {used:.1f} s of CPU with a 1 s limit ({plan.status})"
