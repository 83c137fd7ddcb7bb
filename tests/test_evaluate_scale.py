"""The plan's evaluation stays O(replicas + nodes + streams) in kind (issue 56): it builds no array of operators ×
nodes or streams × nodes, its memory grows by a bounded number of bytes per node of the cluster whatever the
number of streams, and its sparse sums equal the dense matrices' they replaced. No wall-clock assertion."""

from __future__ import annotations

import random
import tracemalloc

import numpy as np
import pytest

from streamplace.bench.clusters import racks
from streamplace.bench.registry import resolve_topology
from streamplace.bench.topologies import storm_large
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf import cells as cells_module
from streamplace.perf.cells import Cells, compile_cells
from streamplace.perf.engines import EngineSettings
from streamplace.perf.evaluate import evaluate
from streamplace.perf.network import stream_metrics, stream_shares
from streamplace.perf.rates import operator_rates
from streamplace.schedulers import create


def _wide(streams: int) -> Topology:
    """A source feeding ``streams`` sinks: as many streams as wanted on a handful of replicas."""
    ops = [Operator("src", "source", rate=100.0, cost_ms=0.1, replicas=4)]
    ops += [Operator(f"s{k}", "sink", cost_ms=0.1, replicas=2) for k in range(streams)]
    return Topology("wide", tuple(ops), tuple(Stream("src", f"s{k}") for k in range(streams)))


def _plan_on_first_nodes(topology: Topology, cluster: Cluster) -> Plan:
    """Every replica on the cluster's first 8 nodes, the same plan whatever the cluster's size."""
    ids = cluster.ids
    replicas = {op.id: {ids[(k + r) % 8]: 1 for r in range(op.replicas)} for k, op in enumerate(topology.operators)}
    return Plan("manual", topology.name, cluster.name, replicas, {"src": 100.0})


def test_evaluation_builds_no_operator_by_node_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dense (operators × nodes) builders are never called while a plan is evaluated, by any engine."""
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("an (operators × nodes) matrix was built during the evaluation")

    topology, cluster = storm_large(3, 4, 9, 6), racks(4, 10)
    plans = [create(s).plan(topology, cluster) for s in ("round-robin", "r-storm", "ffd")]
    monkeypatch.setattr(Cells, "share_matrix", refuse)
    monkeypatch.setattr(Cells, "count_matrix", refuse)
    monkeypatch.setattr(cells_module, "cost_tables", refuse)
    for plan in plans:
        for engine in ("ideal", "storm", "spark"):
            assert evaluate(topology, cluster, plan, engine=EngineSettings(engine)).sustainable_scale > 0


def _peak_bytes(topology: Topology, cluster: Cluster) -> int:
    plan = _plan_on_first_nodes(topology, cluster)
    evaluate(topology, cluster, plan)  # the cluster's own cached arrays (racks, groups) are not the evaluation's
    tracemalloc.start()
    try:
        evaluate(topology, cluster, plan)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_evaluation_memory_grows_per_node_not_per_stream_times_node() -> None:
    """Ten times the nodes for the same plan: the evaluation's peak grows by at most 400 bytes per added node
    (a few dozen per-node arrays of floats), with 40 streams or 4 — where a (streams × nodes) matrix of floats
    alone would take 320 bytes per node with 40 streams, and the evaluation built several."""
    for streams in (4, 40):
        topology = _wide(streams)
        small, large = _peak_bytes(topology, racks(10, 100)), _peak_bytes(topology, racks(100, 100))
        per_node = (large - small) / 9_000
        assert per_node < 400, (streams, per_node)


def _dense(topology: Topology, cells: Cells) -> tuple[np.ndarray, np.ndarray]:
    """The (streams × nodes) producer and consumer shares the evaluation used before issue 56."""
    idx = topology.index
    p, counts = np.zeros((cells.n_ops, cells.n_nodes)), np.zeros((cells.n_ops, cells.n_nodes))
    np.add.at(p, (cells.op, cells.node), cells.split_share)
    np.add.at(counts, (cells.op, cells.node), cells.count)
    q_all = counts / np.maximum(cells.parallelism, 1)[:, None]
    src = [idx[s.source] for s in topology.streams]
    tgt = [idx[s.target] for s in topology.streams]
    is_all = np.array([s.grouping == "all" for s in topology.streams])
    return p[src], np.where(is_all[:, None], q_all[tgt], p[tgt])


@pytest.mark.parametrize("name", ["diamond", "star", "pageload", "processing"])
def test_sparse_stream_sums_equal_the_dense_matrices(name: str) -> None:
    """NIC loads are the same sums in the same order as over the dense matrices (equal to the bit); per-stream
    locality and rack uplinks equal them to rounding."""
    rng = random.Random(name)
    topology = resolve_topology(name)
    nodes = tuple(Node(f"n{j}", cpu=400, memory_mb=1 << 20, rack=f"r{rng.randrange(4)}") for j in range(30))
    cluster = Cluster("c", nodes, Links(same_rack_ms=0.1, cross_rack_ms=1.0))
    for scheduler in ("round-robin", "r-storm"):
        plan = create(scheduler).plan(topology, cluster)
        rates = operator_rates(topology, None, plan.source_rates or None)
        cells = compile_cells(topology, cluster, plan.replicas, rates)
        metrics = stream_metrics(topology, cluster, cells, rates)
        ps, qs = _dense(topology, cells)
        shares = stream_shares(topology, cells)
        assert len(shares.p) <= 2 * len(cells.op) * len(topology.streams)
        volume = metrics.tuples * np.array([s.bytes_per_tuple or topology.operators[topology.index[s.source]]
                                            .bytes_per_tuple for s in topology.streams], dtype=float)
        assert np.array_equal(metrics.node_out, (volume[:, None] * ps * (1.0 - qs)).sum(axis=0))
        assert np.array_equal(metrics.node_in, (volume[:, None] * qs * (1.0 - ps)).sum(axis=0))
        assert metrics.local_fraction == pytest.approx((ps * qs).sum(axis=1), rel=1e-12, abs=1e-15)
        member = np.eye(len(cluster.racks))[cluster.rack_index]
        p_rack, q_rack = ps @ member, qs @ member
        # to rounding of the volumes summed: a rack with no traffic came out as 7e-9 B/s where 2e8 B/s flow
        tol = 1e-12 * float(volume.sum())
        assert metrics.rack_out == pytest.approx((volume[:, None] * p_rack * (1.0 - q_rack)).sum(axis=0), rel=1e-12,
                                                 abs=tol)
        assert metrics.rack_in == pytest.approx((volume[:, None] * q_rack * (1.0 - p_rack)).sum(axis=0), rel=1e-12,
                                                abs=tol)
