"""What several flows share: the link between racks (``links.rack_uplink_mbps``) and, for topologies scheduled
side by side, the cluster itself (perf/together.py: each topology at its own max-min fair rate)."""

from __future__ import annotations

import dataclasses

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.errors import ModelError
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.engines import EngineSettings
from streamplace.perf.evaluate import evaluate
from streamplace.perf.together import evaluate_together
from streamplace.schedulers import create
from streamplace.spec.loader import load_cluster


def _two_racks(uplink: float | None) -> Cluster:
    nodes = tuple(Node(f"n{i}", cpu=400.0, memory_mb=4096, rack=f"r{i % 2}") for i in range(4))
    return Cluster("two-racks", nodes, Links(rack_uplink_mbps=uplink))


def _pipe(name: str = "pipe", rate: float = 100.0, cost: float = 0.01) -> Topology:
    return Topology(name, (Operator("src", "source", rate=rate, cost_ms=cost, bytes_per_tuple=1000.0),
                           Operator("sink", "sink", cost_ms=cost)), (Stream("src", "sink"),))


def test_cross_rack_traffic_is_bounded_by_the_racks_link() -> None:
    """1,000-byte tuples from rack r0 to rack r1 over an 8 Mbit/s link: at most 1,000 tuples/s, and the
    prediction names the link; the same plan inside one rack, or with no link speed, is not bound by it."""
    topo = _pipe()
    across = Plan("x", topo.name, "two-racks", {"src": {"n0": 1}, "sink": {"n1": 1}}, {"src": 100.0})
    ev = evaluate(topo, _two_racks(8.0), across)
    assert ev.throughput == pytest.approx(1000.0)
    assert "uplink of rack r0" in ev.bottleneck
    inside = Plan("y", topo.name, "two-racks", {"src": {"n0": 1}, "sink": {"n2": 1}}, {"src": 100.0})
    assert "uplink" not in evaluate(topo, _two_racks(8.0), inside).bottleneck
    assert "uplink" not in evaluate(topo, _two_racks(None), across).bottleneck
    # half the consumer's replicas across: half the traffic crosses, so twice the rate fits
    split = Plan("z", topo.name, "two-racks", {"src": {"n0": 1}, "sink": {"n1": 1, "n2": 1}}, {"src": 100.0})
    assert evaluate(topo, _two_racks(8.0), split).throughput == pytest.approx(2000.0)


def test_a_cluster_spec_sets_the_link_and_a_bad_speed_is_refused(tmp_path) -> None:
    spec = tmp_path / "c.yaml"
    body = ("name: c\nnodes:\n  - {id: a, cpu: 100, memory_mb: 1024, rack: r1}\n"
            "  - {id: b, cpu: 100, memory_mb: 1024, rack: r2}\nlinks: {rack_uplink_mbps: %s}\n")
    spec.write_text(body % "250")
    assert load_cluster(spec).rack_uplink_bytes == pytest.approx(250e6 / 8)
    spec.write_text(body % "0")
    with pytest.raises(ModelError, match=r"links\.rack_uplink_mbps"):
        load_cluster(spec)


@pytest.mark.parametrize("topology", ["linear-net", "diamond-net", "star-net"])
def test_rstorm_is_ahead_of_the_default_on_the_network_bound_micro_benchmarks(topology: str) -> None:
    """Peng et al. 2015 §6.3.1 under the storm engine (Storm's defaults): round robin sends about half of each
    stream over the racks' shared link; R-Storm keeps the topology in one rack. Without the link in the model
    R-Storm is behind on Linear and Star — the term is what the result rests on."""
    t, c = resolve_topology(topology), resolve_cluster("rstorm-12")
    storm = EngineSettings("storm")
    rs_plan, rr_plan = create("r-storm").plan(t, c), create("round-robin").plan(t, c)
    rs, rr = evaluate(t, c, rs_plan, engine=storm), evaluate(t, c, rr_plan, engine=storm)
    assert rs.throughput > 1.2 * rr.throughput
    assert "uplink" in rr.bottleneck
    no_link = dataclasses.replace(c, links=dataclasses.replace(c.links, rack_uplink_mbps=None))
    if topology != "diamond-net":
        assert (evaluate(t, no_link, rs_plan, engine=storm).throughput
                < evaluate(t, no_link, rr_plan, engine=storm).throughput)


def test_topologies_side_by_side_get_max_min_fair_scales() -> None:
    """Two pipes on one 100-point node: ``a`` needs 1 point per tuple/s at its offered rate's scale, ``b`` the
    same. Alone each would reach scale 1.0 (100 points); together both stop at 0.5 (the node is full). A lighter
    ``a`` does not let ``b`` rise past it: both stop at the same scale where the node fills."""
    node = Cluster("one", (Node("n", cpu=100.0, memory_mb=4096),))
    a, b = _pipe("a", rate=100.0, cost=5.0), _pipe("b", rate=100.0, cost=5.0)
    plan = {"src": {"n": 1}, "sink": {"n": 1}}
    pa, pb = (Plan("p", t.name, "one", plan, {"src": 100.0}) for t in (a, b))
    shared = evaluate_together([a, b], [pa, pb], node)
    assert shared.scales == pytest.approx((0.5, 0.5))
    assert shared.throughputs == pytest.approx((50.0, 50.0))
    assert shared.bound_by == ("cpu of n", "cpu of n")
    small = _pipe("a", rate=100.0, cost=1.0)  # a's work 0.2 points per tuple/s: it takes less of the node
    shared = evaluate_together([small, b], [Plan("p", "a", "one", plan, {"src": 100.0}), pb], node)
    assert shared.scales[0] == pytest.approx(shared.scales[1])  # equal scales, unequal loads: max-min fair
    assert 100.0 * shared.scales[0] * (0.2 + 1.0) == pytest.approx(100.0)
    with pytest.raises(ValueError, match="spark"):
        evaluate_together([a, b], [pa, pb], node, engine=EngineSettings("spark"))
