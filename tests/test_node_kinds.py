"""max-throughput by kind of node (schedulers/node_kinds.py): the first Σk + 1 nodes of each class hold every plan
with its scale, their LP bounds every plan, hetero's algorithm on them is hetero's on the whole cluster, and the
scheduler plans on them what it plans on the whole cluster."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from streamplace.bench import resolve_topology
from streamplace.bench.clusters import racks
from streamplace.bench.topologies import storm_large
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, IdealSettings
from streamplace.perf.rates import selectivities
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers import create, max_throughput
from streamplace.schedulers.base import Deadline
from streamplace.schedulers.hetero import Rules, first_assignment, maximize_throughput
from streamplace.schedulers.node_kinds import cluster_classes, expand, kind_classes, kind_model, kind_nodes, restrict
from streamplace.schedulers.throughput_lp import lp_bound

TOPOLOGIES = ("nasiri-linear", "nasiri-diamond", "rollingcount", "uniquevisitor")


def many_alike(rng: np.random.Generator) -> Cluster:
    """One to three machine kinds, 2 to 20 machines of each, interleaved (a class's nodes are not contiguous),
    each machine of type a or b at random (alike but for the type)."""
    kinds = [(float(rng.choice([100, 200, 400])), float(rng.choice([0.5, 1.0, 2.0])),
              float(rng.choice([512, 2048, 16384]))) for _ in range(int(rng.integers(1, 4)))]
    per = [(cpu, speed, mem) for cpu, speed, mem in kinds for _ in range(int(rng.integers(2, 21)))]
    order = rng.permutation(len(per))
    nodes = tuple(Node(id=f"n{j}", cpu=per[o][0], speedup=per[o][1], memory_mb=per[o][2], rack=f"rack{j % 2}",
                       type=str(rng.choice(["a", "b"]))) for j, o in enumerate(order))
    return Cluster("alike", nodes, Links(same_rack_ms=0.1, cross_rack_ms=1.0))


def instance(seed: int, engine: str | None = None) -> tuple[ThroughputModel, np.ndarray, np.random.Generator]:
    """A seeded model (both replica caps, with and without a per-node task cap) and small k, so that Σk + 1 is
    below some classes' sizes."""
    rng = np.random.default_rng(seed)
    topology = resolve_topology(TOPOLOGIES[seed % len(TOPOLOGIES)])
    model = ThroughputModel.build(topology, many_alike(rng), replica_cap=("machine", "thread")[seed % 2],
                                  tasks_per_node=(None, 3)[(seed // 2) % 2],
                                  engine=EngineSettings(engine) if engine else None)
    return model, rng.integers(1, 3, len(topology.operators)), rng


def onto_kept(counts: np.ndarray, classes: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """A plan's used nodes of each class moved, in index order, onto that class's kept nodes in index order."""
    out = np.zeros((counts.shape[0], len(keep)), dtype=counts.dtype)
    for c in np.unique(classes):
        used = np.flatnonzero((classes == c) & (counts.sum(axis=0) > 0))
        slots = np.flatnonzero(classes[keep] == c)
        assert len(used) <= len(slots)
        out[:, slots[:len(used)]] = counts[:, used]
    return out


def random_plan(model: ThroughputModel, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """1..k_i replicas of each operator on random allowed nodes."""
    counts = np.zeros(model.e.shape, dtype=np.int64)
    for i in range(len(k)):
        for _ in range(int(rng.integers(1, k[i] + 1))):
            counts[i, rng.choice(np.flatnonzero(model.allowed[i]))] += 1
    return counts


@pytest.mark.parametrize("seed", range(16))
def test_the_kept_nodes_are_each_classes_first_and_hold_every_plan_with_its_scale(seed: int) -> None:
    """Of each class of alike nodes the first min(n_C, Σk + 1) by index are kept; every plan of at most k_i
    replicas per operator, moved onto them class by class, has the same scale (to the bit: the same node sums)
    and fits as it did — under the ideal model and the storm engine's serialization CPU."""
    model, k, rng = instance(seed, "storm" if seed % 4 == 3 else None)
    keep = kind_nodes(model, k)
    classes = kind_classes(model)
    if keep is None:
        assert all((classes == c).sum() <= k.sum() + 1 for c in np.unique(classes))
        return
    assert np.array_equal(keep, np.sort(keep))
    for c in np.unique(classes):
        members = np.flatnonzero(classes == c)
        assert np.array_equal(keep[classes[keep] == c], members[:min(len(members), int(k.sum()) + 1)])
    small = restrict(model, keep)
    for _ in range(20):
        counts = random_plan(model, k, rng)
        moved = onto_kept(counts, classes, keep)
        assert small.max_scale(moved) == pytest.approx(model.max_scale(counts), rel=1e-12, abs=0.0)
        assert small.fits(moved) == model.fits(counts)
        assert np.array_equal(expand(moved, keep, model.e.shape[1])[:, keep], moved)


@pytest.mark.parametrize("seed", range(16))
def test_the_kept_nodes_lp_bounds_every_plan_and_is_no_looser_than_the_whole_clusters(seed: int) -> None:
    """Both LPs max-throughput solves (the plain one and, with replicas capped by their machine, its proof) on
    the kept nodes: at most the whole cluster's bound, at least every random plan's scale."""
    model, k, rng = instance(seed)
    keep = kind_nodes(model, k)
    if keep is None:
        pytest.skip("no class larger than Σk + 1")
    small = restrict(model, keep)
    plans = [random_plan(model, k, rng) for _ in range(30)]
    best = max(model.max_scale(c) for c in plans if model.fits(c)) if any(model.fits(c) for c in plans) else 0.0
    for points in (None, np.minimum(model.thread_points, model.cap)):
        whole = lp_bound(model, k, points)[0]
        kept = lp_bound(small, k, None if points is None else points[keep])[0]
        assert kept <= whole * (1 + 1e-7)
        assert kept >= best * (1 - 1e-7)


@pytest.mark.parametrize("seed", range(16))
def test_hetero_on_the_kept_nodes_is_hetero_on_the_whole_cluster(seed: int) -> None:
    """The paper's algorithm (as its text and as its authors' simulator run it) takes the first free node of the
    fastest kind, so on the kept nodes it makes the same plan, node for node, as on every node."""
    rng = np.random.default_rng(seed)
    topology = resolve_topology(TOPOLOGIES[seed % len(TOPOLOGIES)])
    model = ThroughputModel.build(topology, many_alike(rng), replica_cap=("machine", "thread")[seed % 2])
    k = rng.integers(1, 4, len(topology.operators))
    keep = kind_nodes(model, k)
    if keep is None:
        pytest.skip("no class larger than Σk + 1")
    small = restrict(model, keep)
    alpha = selectivities(topology, None)
    for rules in (Rules(), Rules("ratio", 199, "lowest-id")):
        runs = []
        for m in (model, small):
            first = first_assignment(m, alpha, 0.01)
            assert not isinstance(first, str)
            runs.append(maximize_throughput(m, first[0], first[1], k, 2048, 200_000, Deadline(None), rules))
        assert np.array_equal(expand(runs[1][0], keep, model.e.shape[1]), runs[0][0])
        assert runs[1][1] == runs[0][1]


@pytest.mark.parametrize("cap", ["machine", "thread"])
def test_max_throughput_by_kind_plans_on_the_kept_nodes_at_the_whole_clusters_scale(
        cap: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """storm_large on 400 nodes of one kind (Σk + 1 = 81 of them kept): the plan uses kept nodes only, and its
    scale is the one planned on every node (both at the LP bound)."""
    topology, cluster = storm_large(2, 4, 6, 8), racks(10, 40)
    engine = EngineSettings("ideal", ideal=IdealSettings(cap))
    scheduler = create("max-throughput", {"lp_node_columns": "0"})
    by_kind = scheduler.plan(topology, cluster, engine=engine)
    monkeypatch.setattr(max_throughput, "kind_model", lambda t, c, p, k, e, r, n: (
        ThroughputModel.build(t, c, p, engine=e, replica_cap=r, tasks_per_node=n), None))
    whole = scheduler.plan(topology, cluster, engine=engine)
    assert by_kind.gap == pytest.approx(0.0, abs=1e-9) and whole.gap == pytest.approx(0.0, abs=1e-9)
    assert sum(by_kind.source_rates.values()) == pytest.approx(sum(whole.source_rates.values()), rel=1e-9)
    ids = [n.id for n in cluster.nodes]
    kept = set(ids[:8 * 10 + 1])  # Σk + 1 = 8 operators × 10 + 1: the first 81 nodes (one class)
    assert {n for per in by_kind.replicas.values() for n in per} <= kept


@pytest.mark.parametrize("seed", range(16))
def test_the_model_on_the_kept_nodes_is_the_whole_clusters_restricted_to_them(seed: int) -> None:
    """With an operator pinned to some nodes, and costs by node type from a profile or not, under the ideal model
    and the storm engine: nodes of one class found from the cluster have equal columns in the whole cluster's
    model, and the model kind_model builds on the kept nodes alone is that model restricted to them, field by
    field."""
    rng = np.random.default_rng(seed)
    cluster = many_alike(rng)
    base = resolve_topology(TOPOLOGIES[seed % len(TOPOLOGIES)])
    ids = [n.id for n in cluster.nodes]
    pin = tuple(str(i) for i in rng.choice(ids, size=min(len(ids), 3), replace=False))
    ops = tuple(dataclasses.replace(op, pinned=pin) if j == 1 else op for j, op in enumerate(base.operators))
    topology = Topology(base.name, ops, base.streams)
    profile = Profile((ProfileEntry(ops[0].id, "b", 3.0, 5.0),)) if seed % 3 else None
    k = rng.integers(1, 3, len(ops))
    settings = {"engine": EngineSettings("storm") if seed % 4 == 3 else None,
                "replica_cap": ("machine", "thread")[seed % 2], "tasks_per_node": (None, 3)[(seed // 2) % 2]}
    whole = ThroughputModel.build(topology, cluster, profile, **settings)  # type: ignore[arg-type]
    classes = cluster_classes(topology, cluster, profile)
    for c in np.unique(classes):
        members = np.flatnonzero(classes == c)
        for table in (whole.e, whole.met, whole.allowed, whole.rate_cost):
            assert (table[:, members] == table[:, members[:1]]).all()
        for values in (whole.cap, whole.node_memory, whole.thread_points, whole.slots):
            assert (values[members] == values[members[0]]).all()
    part, keep = kind_model(topology, cluster, profile, k, **settings)  # type: ignore[arg-type]
    if keep is None:
        assert all((classes == c).sum() <= k.sum() + 1 for c in np.unique(classes))
        return
    expected = restrict(whole, keep)
    for f in dataclasses.fields(ThroughputModel):
        a, b = getattr(part, f.name), getattr(expected, f.name)
        if f.name == "remote":
            assert (a is None) == (b is None)
            if a is not None:
                for g in dataclasses.fields(a):
                    assert np.array_equal(getattr(a, g.name), getattr(b, g.name))
        else:
            assert np.array_equal(np.asarray(a), np.asarray(b)), f.name
