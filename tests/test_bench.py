"""Built-in benchmarks and the Peng et al. 2015 §6.3 claims, in the model."""

from __future__ import annotations

import pytest

from streamplace.bench import list_builtins, resolve_cluster, resolve_topology
from streamplace.bench.clusters import racks
from streamplace.bench.topologies import BUILTIN_TOPOLOGIES, storm_large
from streamplace.errors import SpecError
from streamplace.perf import evaluate
from streamplace.schedulers import create


@pytest.mark.parametrize("name", sorted(BUILTIN_TOPOLOGIES))
def test_every_builtin_topology_builds(name: str) -> None:
    t = resolve_topology(name)
    assert t.sources and t.sinks


def test_cpu_variant_declarations_are_truthful() -> None:
    """At the offered rate, a replica of the -cpu variant uses exactly its declared CPU points."""
    t = resolve_topology("diamond-cpu")
    c = resolve_cluster("rstorm-12")
    plan = create("round-robin").plan(t, c)
    ev = evaluate(t, c, plan)
    declared = [t.operators[i].cpu for i in ev.cells.op]
    used = ev.cells.rate * ev.cells.e / 10
    assert used.tolist() == pytest.approx(declared)


@pytest.mark.parametrize("topo", ["linear-net", "diamond-net", "star-net"])
def test_rstorm_cuts_inter_node_traffic_on_network_bound(topo: str) -> None:
    t, c = resolve_topology(topo), resolve_cluster("rstorm-12")
    rs = create("r-storm").plan(t, c).predicted
    rr = create("round-robin").plan(t, c).predicted
    assert rs["inter_node_traffic"] < rr["inter_node_traffic"]


@pytest.mark.parametrize("topo,nodes", [("linear-cpu", 6), ("diamond-cpu", 7), ("star-cpu", 6)])
def test_rstorm_uses_fewer_nodes_for_the_same_throughput(topo: str, nodes: int) -> None:
    """Peng et al. 2015 §6.3.2: 6, 7 and 6 machines instead of 12 for the same throughput."""
    t, c = resolve_topology(topo), resolve_cluster("rstorm-12")
    rs = create("r-storm").plan(t, c).predicted
    rr = create("round-robin").plan(t, c).predicted
    assert rs["nodes_used"] == nodes and rr["nodes_used"] == 12
    assert rs["delivered_throughput"] == pytest.approx(rr["delivered_throughput"], rel=1e-6)
    assert rs["mean_utilization"] > rr["mean_utilization"]


def test_large_shapes() -> None:
    t = storm_large()
    assert t.total_replicas() == 5 * 30 + 40 * 114
    c = racks(25, 40)
    assert len(c) == 1000 and len(c.racks) == 25
    assert resolve_cluster("racks-2x3").name == "racks-2x3"


def test_unknown_builtin_names_the_choices() -> None:
    with pytest.raises(SpecError, match="linear-net"):
        resolve_topology("lineer")


def test_list_builtins() -> None:
    names = {n for _, n, _ in list_builtins()}
    assert {"linear", "rstorm-12", "hetero-3", "racks-RxN"} <= names
