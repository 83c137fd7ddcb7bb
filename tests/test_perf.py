"""Performance model against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamplace.errors import RateDivergenceError
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf import evaluate, operator_rates

from .conftest import chain, two_racks

ALL_ON_ONE = {"src": {"n00": 1}, "mid": {"n00": 1}, "sink": {"n00": 1}}


def test_rates_chain_and_fanout() -> None:
    ops = (Operator("s", "source", rate=100), Operator("a", selectivity=0.5), Operator("b"),
           Operator("k", "sink"))
    t = Topology("f", ops, (Stream("s", "a"), Stream("s", "b"), Stream("a", "k"), Stream("b", "k")))
    r = operator_rates(t)
    assert r.input.tolist() == [100, 100, 100, 150]  # fan-out duplicates; k gets 50 + 100
    assert r.stream.tolist() == [100, 100, 50, 100]


def test_rates_on_a_converging_cycle() -> None:
    ops = (Operator("s", "source", rate=10), Operator("a"), Operator("b", selectivity=0.5), Operator("k", "sink"))
    t = Topology("c", ops, (Stream("s", "a"), Stream("a", "b"), Stream("b", "a"), Stream("b", "k")))
    r = operator_rates(t)
    assert r.input[1] == pytest.approx(20.0)  # λa = 10 + 0.5 λb, λb = λa
    assert r.input[3] == pytest.approx(10.0)


def test_rates_diverge_with_clear_error() -> None:
    ops = (Operator("s", "source", rate=10), Operator("a"), Operator("b"), Operator("k", "sink"))
    t = Topology("c", ops, (Stream("s", "a"), Stream("a", "b"), Stream("b", "a"), Stream("b", "k")))
    with pytest.raises(RateDivergenceError, match=r"a → b.*loop gain"):
        operator_rates(t)


def test_cpu_scale_throughput_latency_by_hand() -> None:
    ev = evaluate(chain(rate=100, cost=1.0), two_racks(), ALL_ON_ONE)
    assert ev.cpu_utilization[0] == pytest.approx(0.30)  # 3 replicas × 100 t/s × 1 ms = 30 points
    assert ev.sustainable_scale == pytest.approx(100 / 30)
    assert ev.throughput == pytest.approx(100 * 100 / 30)
    assert ev.delivered_throughput == pytest.approx(100.0)
    assert ev.latency_ms == pytest.approx(3 * 1000 / 900)  # M/M/1: 1/(1000 − 100) s each
    assert ev.inter_node_traffic == 0.0 and ev.nodes_used == (0,)
    assert ev.cost == 3.0


def test_link_metrics_by_hand() -> None:
    plan = {"src": {"n00": 1}, "mid": {"n10": 1}, "sink": {"n00": 1}}
    ev = evaluate(chain(), two_racks(), plan)
    assert ev.inter_node_traffic == pytest.approx(2 * 100 * 100)  # two streams × 100 t/s × 100 B
    assert ev.network_usage == pytest.approx(2 * 100 * 100 * 10.0)
    assert ev.elastic_energy == pytest.approx(2 * 100 * 100 * 100.0)
    assert ev.latency_ms == pytest.approx(3 * 1000 / 900 + 20.0)
    assert ev.score.s_lat == pytest.approx(20.0) and ev.score.s_co == 1.0 and ev.score.s_sup == 0.5


def test_even_split_locality() -> None:
    plan = {"src": {"n00": 1}, "mid": {"n00": 1, "n01": 1}, "sink": {"n00": 1}}
    t = chain().with_replicas({"mid": 2})
    ev = evaluate(t, two_racks(), plan)
    assert ev.streams.local_fraction.tolist() == pytest.approx([0.5, 0.5])
    assert ev.inter_node_traffic == pytest.approx(2 * 0.5 * 100 * 100)
    assert ev.latency_ms > ev.latency_mean_ms  # worst pair crosses, the mean does not always


def test_one_thread_cap_binds() -> None:
    """With ``ideal.replica_cap=thread`` a replica's thread binds before the node; under the default (Nasiri et
    al.'s machine-only cap) the node does."""
    from streamplace.perf.engines import EngineSettings, IdealSettings

    c = Cluster("big", (Node("n", cpu=400, memory_mb=1000),))
    replicas = {"src": {"n": 1}, "mid": {"n": 1}, "sink": {"n": 1}}
    ev = evaluate(chain(rate=100, cost=5.0), c, replicas, engine=EngineSettings("ideal", ideal=IdealSettings("thread")))
    # node: 150 points of 400 → 2.67; a thread: 50 points of 100 → 2.0
    assert ev.sustainable_scale == pytest.approx(2.0)
    assert "one-thread cap" in ev.bottleneck
    machine = evaluate(chain(rate=100, cost=5.0), c, replicas)
    assert machine.sustainable_scale == pytest.approx(400 / 150) and "cpu of node" in machine.bottleneck


def test_overhead_and_speedup() -> None:
    ops = (Operator("s", "source", rate=100, cost_ms=2.0, overhead=20), Operator("k", "sink"))
    t = Topology("o", ops, (Stream("s", "k"),))
    c = Cluster("c", (Node("fast", cpu=100, memory_mb=1000, speedup=2.0),))
    ev = evaluate(t, c, {"s": {"fast": 1}, "k": {"fast": 1}})
    assert ev.cpu_utilization[0] == pytest.approx((100 * 1.0 / 10 + 20) / 100)  # e = 2 / 2
    assert ev.sustainable_scale == pytest.approx(80 / 10)


def test_profile_overrides_cost_per_node_type() -> None:
    c = Cluster("c", (Node("a", cpu=100, memory_mb=1000, type="slow"), Node("b", cpu=100, memory_mb=1000,
                                                                             type="fast")))
    prof = Profile((ProfileEntry("mid", "fast", cost_ms=0.25, overhead=5),), {"mid": 0.5})
    t = chain()
    ev = evaluate(t, c, {"src": {"a": 1}, "mid": {"b": 1}, "sink": {"a": 1}}, prof)
    assert ev.cpu_utilization[1] == pytest.approx((100 * 0.25 / 10 + 5) / 100)
    assert ev.rates.input[2] == pytest.approx(50.0)  # selectivity from the profile


def test_capacity_weighted_split() -> None:
    c = Cluster("c", (Node("slow", cpu=100, memory_mb=1000), Node("fast", cpu=100, memory_mb=1000, speedup=2.0)))
    t = chain(rate=90).with_replicas({"mid": 2})
    plan = {"src": {"slow": 1}, "mid": {"slow": 1, "fast": 1}, "sink": {"slow": 1}}
    even = evaluate(t, c, plan, split="even")
    cap = evaluate(t, c, plan, split="capacity")
    mid = even.cells.op == 1
    assert sorted(even.cells.rate[mid].tolist()) == pytest.approx([45, 45])
    assert sorted(cap.cells.rate[mid].tolist()) == pytest.approx([30, 60])  # 1 : 2 like the speeds


def test_availability_nodes_and_links() -> None:
    nodes = (Node("a", cpu=100, memory_mb=100, availability=0.99), Node("b", cpu=100, memory_mb=100,
                                                                         availability=0.98))
    c = Cluster("c", nodes, Links(availability_pairs={"a": {"b": 0.9}}))
    ev = evaluate(chain(), c, {"src": {"a": 1}, "mid": {"b": 1}, "sink": {"b": 1}})
    assert ev.availability == pytest.approx(0.99 * 0.98 * 0.9)
    assert ev.log_availability == pytest.approx(math.log(0.99 * 0.98 * 0.9))


def test_bandwidth_limits_scale() -> None:
    nodes = tuple(Node(n, cpu=1000, memory_mb=100, bandwidth_mbps=8.0) for n in ("a", "b"))  # 1 MB/s
    c = Cluster("c", nodes)
    ev = evaluate(chain(rate=100, cost=0.0), c, {"src": {"a": 1}, "mid": {"b": 1}, "sink": {"a": 1}})
    # a sends 10 kB/s and receives 10 kB/s: 1e6 / 1e4 = 100
    assert ev.sustainable_scale == pytest.approx(100.0)
    assert "bandwidth" in ev.bottleneck


def test_memory_violations_and_score_violations() -> None:
    c = Cluster("tiny", (Node("n", cpu=20, memory_mb=250),))
    ev = evaluate(chain(), c, {"src": {"n": 1}, "mid": {"n": 1}, "sink": {"n": 1}})
    assert ev.memory_violations == (0,)
    assert ev.score.violations == 2  # CPU 150 % of a 20-point node, and memory


def test_unsustainable_offered_rate_has_infinite_latency() -> None:
    ev = evaluate(chain(rate=2000, cost=1.0), two_racks(), ALL_ON_ONE)
    assert ev.latency_ms == math.inf and ev.delivered_throughput < 2000


def test_all_grouping_reaches_every_replica() -> None:
    ops = (Operator("s", "source", rate=100), Operator("k", "sink", replicas=3, cost_ms=1.0))
    t = Topology("b", ops, (Stream("s", "k", "all"),))
    c = two_racks()
    ev = evaluate(t, c, {"s": {"n00": 1}, "k": {"n00": 1, "n01": 1, "n10": 1}})
    assert np.allclose(ev.cells.rate[ev.cells.op == 1], 100.0)
    assert ev.inter_node_traffic == pytest.approx(2 * 100 * 100)
