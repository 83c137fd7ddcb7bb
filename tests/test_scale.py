"""Planning at scale: the fast paths give exactly what the plain definitions give.

R-Storm's node groups and FFD's cursors are checked against a scan of every node
(written out here as the papers state it), the link sums against the n × n
matrices, and the loader's node groups and duplicate keys against what a user
writes.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from streamplace.bench.registry import resolve_topology
from streamplace.bench.topologies import storm_large
from streamplace.errors import SpecError
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import PRETTY_LIMIT, json_text
from streamplace.perf.cells import compile_cells, cost_tables
from streamplace.perf.evaluate import operator_rates
from streamplace.perf.network import link_log_availability, pair_sums, stream_metrics
from streamplace.schedulers import create
from streamplace.schedulers.base import EPS, Deadline, allowed_mask
from streamplace.schedulers.ffd import FirstFitDecreasing
from streamplace.schedulers.rstorm import RStorm, reference_node, task_order
from streamplace.spec.loader import load_cluster


def _random_cluster(rng: random.Random, k: int, pairs: bool = False) -> Cluster:
    nodes = tuple(Node(f"n{j}", cpu=rng.choice([100, 200, 400]), memory_mb=rng.choice([1024, 2048, 4096]),
                       rack=f"r{rng.randrange(3)}", zone=f"z{rng.randrange(2)}") for j in range(rng.randrange(3, 30)))
    ids = [n.id for n in nodes]

    def table(lo: float, hi: float) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for _ in range(rng.randrange(0, 6) if pairs else 0):
            out.setdefault(rng.choice(ids), {})[rng.choice(ids)] = round(rng.uniform(lo, hi), 3)
        return out

    links = Links(same_node_ms=rng.choice([0.0, 0.05]), same_rack_ms=rng.uniform(0, 1), cross_rack_ms=rng.uniform(1, 5),
                  cross_zone_ms=rng.choice([None, 20.0]), latency_ms=table(0, 50),
                  availability=rng.choice([1.0, 0.999]), availability_pairs=table(0.9, 1.0),
                  cost_per_mb=rng.choice([0.0, 0.01]), cost_per_mb_pairs=table(0, 0.1))
    return Cluster(f"rand{k}", nodes, links)


def _rstorm_by_scan(topology, cluster: Cluster) -> np.ndarray:  # type: ignore[no-untyped-def]
    """R-Storm's Algorithm 4 as the paper states it: every task scans every node (soft CPU, unit weights)."""
    free_mem, free_cpu = cluster.memory.astype(float).copy(), cluster.cpu.astype(float).copy()
    counts = np.zeros((len(topology.operators), len(cluster)), dtype=np.int64)
    ref = None
    mask = allowed_mask(topology, cluster)
    for i in task_order(topology):
        op = topology.operators[i]
        fits_mem = mask[i] & (free_mem >= op.memory_mb - EPS)
        fits_cpu = fits_mem & (free_cpu >= op.cpu - EPS)
        cand = fits_cpu if fits_cpu.any() else fits_mem
        if ref is None:
            ref = reference_node(free_mem, free_cpu, cluster, np.any(mask, axis=0))
            u = ref if cand[ref] else -1
        else:
            u = -1
        if u < 0:
            d2 = (((op.memory_mb - free_mem) / cluster.memory.max()) ** 2
                  + ((op.cpu - free_cpu) / cluster.cpu.max()) ** 2 + cluster.network_distance[ref])
            u = int(np.argmin(np.where(cand, d2, np.inf)))
        counts[i, u] += 1
        free_mem[u] -= op.memory_mb
        free_cpu[u] -= op.cpu
    return counts


def test_rstorm_node_groups_choose_what_a_scan_of_every_node_chooses() -> None:
    rng = random.Random(7)
    cases = [(storm_large(), Cluster("racks", tuple(
        Node(f"r{r}n{k}", cpu=400, memory_mb=16384, rack=f"r{r}") for r in range(5) for k in range(40))))]
    cases += [(resolve_topology(t), _random_cluster(rng, k)) for k in range(25) for t in ("linear", "diamond", "star")]
    short = Cluster("short of cpu", tuple(Node(f"r{r}n{k}", cpu=60 + 20 * k, memory_mb=8192, rack=f"r{r}")
                                          for r in range(2) for k in range(3)))
    cases += [(storm_large(3, 5, 12, 9), short)]  # CPU over-committed: runs chosen among the nodes with memory
    large = storm_large(3, 5, 12, 9)  # an operator pinned to a few nodes: its tasks break the runs of the others
    pinned = tuple(replace(op, pinned=("r1n2", "r3n5")) if op.id == "bolt1_1" else op for op in large.operators)
    cases += [(replace(large, operators=pinned), Cluster("racks", tuple(
        Node(f"r{r}n{k}", cpu=400, memory_mb=4096, rack=f"r{r}") for r in range(4) for k in range(6))))]
    for topology, cluster in cases:
        placed = RStorm()._schedule(topology, cluster, cluster.memory.astype(float).copy(),
                                    cluster.cpu.astype(float).copy(), Deadline(1e9))
        if placed.counts is None:  # memory ran out: the scan runs out too (it would index an empty choice)
            continue
        assert np.array_equal(placed.counts, _rstorm_by_scan(topology, cluster)), (topology.name, cluster.name)


def test_rstorm_task_order_is_one_task_per_component_per_round() -> None:
    """task_order (sorted in numpy) is Algorithm 3's loop: one task per component per round, in BFS order."""
    from streamplace.schedulers.rstorm import bfs_components

    def by_rounds(topology, counts):  # type: ignore[no-untyped-def]
        comps = [topology.index[c] for c in bfs_components(topology)]
        left = {i: counts.get(topology.operators[i].id, topology.operators[i].replicas) for i in comps}
        order = []
        while any(left.values()):
            for i in comps:
                if left[i] > 0:
                    order.append(i)
                    left[i] -= 1
        return order

    rng = random.Random(3)
    for topology in (storm_large(), storm_large(3, 5, 12, 9), *map(resolve_topology, ("diamond", "processing"))):
        for counts in ({}, {op.id: rng.randrange(0, 7) for op in topology.operators}):
            assert task_order(topology, counts or None) == by_rounds(topology, counts), topology.name


def test_rstorm_moves_a_node_between_groups_once_per_run_not_per_task(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tasks that go to one node in a row (a run) move it between NodeStates' groups once: on racks of alike
    nodes the heap work grows with the runs (about the nodes used), not with the tasks."""
    import streamplace.schedulers.rstorm as rstorm

    joins = {"n": 0}
    real = rstorm.NodeStates._join

    def counting(self: rstorm.NodeStates, u: int, free_mem: float, free_cpu: float) -> None:
        joins["n"] += 1
        real(self, u, free_mem, free_cpu)

    monkeypatch.setattr(rstorm.NodeStates, "_join", counting)
    topology = storm_large(5, 30, 40, 114)
    cluster = Cluster("racks", tuple(Node(f"r{r}n{k}", cpu=400, memory_mb=16384, rack=f"r{r}")
                                     for r in range(5) for k in range(40)))
    plan = RStorm().plan(topology, cluster)
    tasks, used = sum(op.replicas for op in topology.operators), len(plan.nodes_used())
    assert joins["n"] < 2 * used < tasks / 10, (joins, used, tasks)


def test_rstorm_groups_many_kinds_of_nodes_in_numpy_as_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    import streamplace.schedulers.rstorm as rstorm

    rng = random.Random(11)
    nodes = tuple(Node(f"n{j}", cpu=100 + 10 * j, memory_mb=2048 + 64 * j, rack=f"r{j % 4}") for j in range(80))
    cluster = Cluster("varied", nodes)
    topology = resolve_topology(rng.choice(["pageload", "processing"]))
    python = RStorm().plan(topology, cluster).replicas
    monkeypatch.setattr(rstorm, "PYTHON_GROUPS", 0)
    assert RStorm().plan(topology, cluster).replicas == python


def test_rstorm_demand_heaps_choose_what_a_scan_of_the_groups_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-demand heaps of NodeStates (a few distinct task demands) pick the node a scan of every live group
    picks, on varied nodes (many groups) and on racks of alike nodes (few groups, long runs on one node)."""
    import streamplace.schedulers.rstorm as rstorm

    rng = random.Random(13)
    nodes = tuple(Node(f"n{j}", cpu=100 + 10 * (j % 9), memory_mb=2048 + 64 * (j % 5), rack=f"r{j % 4}")
                  for j in range(60))
    cases = [(resolve_topology(t), Cluster("varied", nodes)) for t in ("pageload", "processing", "star")]
    cases += [(storm_large(3, 5, 12, 9), Cluster("racks", tuple(
        Node(f"r{r}n{k}", cpu=400, memory_mb=4096, rack=f"r{r}") for r in range(4) for k in range(6))))]
    cases += [(resolve_topology("diamond"), _random_cluster(rng, k)) for k in range(10)]
    cases += [(storm_large(3, 5, 12, 9), Cluster("short of cpu", tuple(  # CPU over-committed: the memory heaps
        Node(f"r{r}n{k}", cpu=60 + 20 * k, memory_mb=8192, rack=f"r{r}") for r in range(2) for k in range(3))))]
    for topology, cluster in cases:
        monkeypatch.setattr(rstorm, "HEAP_DEMANDS", 0)
        scan = RStorm().plan(topology, cluster)
        monkeypatch.setattr(rstorm, "HEAP_DEMANDS", 8)
        for compact_at in (1024, 3):  # 3: the heaps are cleared of stale entries again and again
            monkeypatch.setattr(rstorm, "COMPACT_AT", compact_at)
            heaps = RStorm().plan(topology, cluster)
            assert heaps.replicas == scan.replicas and heaps.status == scan.status, (topology.name, cluster.name)


def _ffd_by_scan(topology, cluster: Cluster) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Heron's first fit decreasing as stated: every instance scans the nodes from the first."""
    free_mem, free_cpu = cluster.memory.astype(float).copy(), cluster.cpu.astype(float).copy()
    mem = np.array([op.memory_mb for op in topology.operators])
    cpu = np.array([op.cpu for op in topology.operators])
    ops = np.repeat(np.arange(len(topology.operators)), [op.replicas for op in topology.operators])
    ops = ops[np.lexsort((-cpu[ops], -mem[ops]))]
    counts = np.zeros((len(topology.operators), len(cluster)), dtype=np.int64)
    for i in ops:
        u = int(np.argmax((free_mem >= mem[i] - EPS) & (free_cpu >= cpu[i] - EPS)))
        counts[i, u] += 1
        free_mem[u] -= mem[i]
        free_cpu[u] -= cpu[i]
    return counts


def test_ffd_cursors_fit_where_a_scan_from_the_first_node_fits() -> None:
    rng = random.Random(3)
    for k in range(30):
        cluster = _random_cluster(rng, k)
        for name in ("linear", "diamond", "pageload"):
            topology = resolve_topology(name)
            placed = FirstFitDecreasing()._place(topology, cluster, None, Deadline(1e9), None)
            if placed.counts is not None:
                assert np.array_equal(placed.counts, _ffd_by_scan(topology, cluster)), (name, cluster.name)


def test_link_sums_equal_the_dense_matrices() -> None:
    rng = random.Random(5)
    checked = 0
    for k in range(40):
        cluster = _random_cluster(rng, k, pairs=True)
        for _ in range(4):
            u = np.array(sorted(rng.sample(range(len(cluster)), rng.randrange(1, len(cluster) + 1))))
            v = np.array(sorted(rng.sample(range(len(cluster)), rng.randrange(1, len(cluster) + 1))))
            p, q = np.array([rng.random() for _ in u]), np.array([rng.random() for _ in v])
            worst, mean, square, cost = pair_sums(cluster, u, p, v, q)
            lat, flow = cluster.latency[np.ix_(u, v)], p[:, None] * q[None, :]
            assert worst == pytest.approx(lat.max())
            assert mean == pytest.approx((flow * lat).sum())
            assert square == pytest.approx((flow * lat * lat).sum())
            assert cost == pytest.approx((flow * cluster.link_cost_per_mb[np.ix_(u, v)]).sum(), abs=1e-12)
            assert np.array_equal(cluster.latency_block(u, v), lat)
            used = np.zeros((len(cluster), len(cluster)), dtype=bool)
            used[np.ix_(u, v)] = True
            np.fill_diagonal(used, False)
            assert link_log_availability(cluster, [(u, v)]) == pytest.approx(
                np.log(cluster.link_availability[used]).sum(), abs=1e-12)
            checked += 1
    assert checked == 160


def test_stream_metrics_of_a_plan_on_links_with_explicit_pairs() -> None:
    rng = random.Random(9)
    cluster = _random_cluster(rng, 0, pairs=True)
    topology = resolve_topology("diamond")
    plan = create("round-robin").plan(topology, cluster)
    rates = operator_rates(topology, None, plan.source_rates or None)
    cells = compile_cells(topology, cluster, plan.replicas, rates, None, "even", cost_tables(topology, cluster, None))
    metrics = stream_metrics(topology, cluster, cells, rates)
    for k, s in enumerate(topology.streams):  # by hand: the dense matrix over the two operators' nodes
        i, j = topology.index[s.source], topology.index[s.target]
        p, q = cells.share_matrix()[i], cells.share_matrix()[j]
        u, v = np.flatnonzero(cells.count_matrix()[i]), np.flatnonzero(cells.count_matrix()[j])
        lat = cluster.latency[np.ix_(u, v)]
        assert metrics.worst_latency_ms[k] == pytest.approx(lat.max())
        assert metrics.mean_latency_ms[k] == pytest.approx((p[u][:, None] * q[v][None, :] * lat).sum())


def test_node_groups_expand_and_errors_name_the_entry(tmp_path: Path) -> None:
    spec = tmp_path / "c.yaml"
    spec.write_text("name: g\nnodes:\n"
                    "  - {id: a, count: 12, cpu: 400, memory_mb: 4096, rack: r1}\n"
                    "  - {id: b, cpu: 200, memory_mb: 2048}\n")
    cluster = load_cluster(spec)
    assert cluster.ids[:3] == ("a-01", "a-02", "a-03") and cluster.ids[11:] == ("a-12", "b")
    assert {cluster.node(i).rack for i in cluster.ids[:12]} == {"r1"}
    spec.write_text("name: g\nnodes:\n"
                    "  - {id: a, count: 3, cpu: 0, memory_mb: 4096}\n"
                    "  - {id: a-2, cpu: 100, memory_mb: 4096}\n")
    with pytest.raises(SpecError) as err:
        load_cluster(spec)
    text = str(err.value)
    assert "nodes[0].cpu: must be > 0" in text and text.count("nodes[0].cpu") == 1  # once, not once per node
    assert "nodes[1].id: duplicate node id 'a-2' (first at nodes[0])" in text
    spec.write_text("name: g\nnodes:\n  - {id: a, count: 0, cpu: 100, memory_mb: 100}\n")
    with pytest.raises(SpecError, match=r"nodes\[0\]\.count"):
        load_cluster(spec)


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "c.yaml"
    spec.write_text("name: g\nnodes:\n  - {id: a, cpu: 100, memory_mb: 100, cpu: 200}\n")
    with pytest.raises(SpecError, match=r"line 3: key 'cpu' given twice in one mapping \(first at line 3\)"):
        load_cluster(spec)
    spec = tmp_path / "c.json"
    spec.write_text('{"name": "g", "nodes": [], "name": "h"}')
    with pytest.raises(SpecError, match="key 'name' given twice"):
        load_cluster(spec)


def test_large_json_is_one_key_per_line_and_reads_back() -> None:
    small = {"a": {"x": 1, "y": [1, 2]}, "b": "text"}
    assert json_text(small) == json.dumps(small, indent=2)
    large = {"scheduler": "r-storm", "replicas": {f"op{i}": {f"n{k}": 1 for k in range(100)} for i in range(60)}}
    text = json_text(large)
    assert len(text.splitlines()) == 4 and json.loads(text) == large  # {, two keys, }
    assert PRETTY_LIMIT < 60 * 100


def test_lexicographic_order_is_networkx_s_and_loops_are_found_as_before() -> None:
    """The loop-free topology's order without networkx (model/topology.py) is networkx's own, and a loop is
    still told by networkx's strongly connected components."""
    import networkx as nx

    from streamplace.model.topology import Operator, Stream, Topology, lex_topological_order

    rng = random.Random(5)
    for _ in range(200):
        n = rng.randrange(1, 12)
        ids = tuple(f"o{k}" for k in rng.sample(range(n), n))
        edges = [(ids[a], ids[b]) for a in range(n) for b in range(n) if a != b and rng.random() < 0.25
                 and (rng.random() < 0.1 or a < b)]
        edges += edges[:rng.randrange(0, 2)]  # a stream given twice (a multigraph)
        g = nx.MultiDiGraph()
        g.add_nodes_from(ids)
        g.add_edges_from(edges)
        at = {op: k for k, op in enumerate(ids)}
        got = lex_topological_order(ids, edges)
        if nx.is_directed_acyclic_graph(g):
            assert got == tuple(nx.lexicographical_topological_sort(g, key=at.__getitem__))
        else:
            assert got is None
    ops = (Operator("s", kind="source", rate=1.0), Operator("a"), Operator("b"), Operator("k", kind="sink"))
    looped = Topology("l", ops, (Stream("s", "a"), Stream("a", "b"), Stream("b", "a"), Stream("b", "k")))
    assert looped.cycles == (("a", "b"),) and not looped.is_acyclic
    chain = Topology("c", ops, (Stream("s", "a"), Stream("a", "b"), Stream("b", "k")))
    assert chain.cycles == () and chain.acyclic_order == ("s", "a", "b", "k")


def test_a_plan_by_one_scheduler_imports_neither_the_others_nor_networkx_for_loading() -> None:
    """The registry imports a scheduler's module when its name is looked up (schedulers/base.py: Registry): a
    round-robin plan does not import ODRP (networkx) or the MILP (highspy); the whole registry is the same
    mapping, in the same order, as when every module was imported up front."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from streamplace.bench.registry import resolve_cluster, resolve_topology\n"
            "from streamplace.schedulers import REGISTRY, create\n"
            "t, c = resolve_topology('linear'), resolve_cluster('rstorm-12')\n"
            "t.cycle_warnings(); assert 'ffd' in REGISTRY and 'nope' not in REGISTRY\n"
            "loaded = sorted(m for m in sys.modules if m.startswith('streamplace.schedulers.'))\n"
            "print([m for m in ('networkx', 'highspy') if m in sys.modules], loaded)\n"
            "create('round-robin')\n"
            "print(sorted(m for m in sys.modules if m.startswith('streamplace.schedulers.')))\n"
            "print(list(REGISTRY), [REGISTRY[n].__module__ for n in REGISTRY])\n")
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "[] ['streamplace.schedulers.base', 'streamplace.schedulers.ranges']", lines[0]
    assert "streamplace.schedulers.round_robin" in lines[1] and "streamplace.schedulers.odrp" not in lines[1]
    from streamplace.schedulers import base

    names = list(base.BUILTIN_MODULES)
    modules = [f"streamplace.schedulers.{base.BUILTIN_MODULES[n]}" for n in names]
    assert lines[2] == f"{names} {modules}"  # every built-in, listed in the table's order, each by its module
    assert base.scheduler_names()[:5] == ["round-robin", "storm-even", "storm-ras", "r-storm", "ffd"]
    assert len(base.REGISTRY) == len(names)


def test_forward_streams_are_the_forward_graph_s_edges_without_networkx() -> None:
    """The latency paths and the spark engine's stages read the forward streams from Topology.forward_streams and
    forward_predecessors (no networkx at a plan's start); they are forward_graph's edges and predecessors, on
    loop-free and looped graphs alike. Nor does a plan import numpy.ma (numpy 2.4's plain unique does)."""
    import subprocess
    import sys

    from streamplace.model.topology import Operator, Stream, Topology

    rng = random.Random(8)
    looped = 0
    for _ in range(150):
        n = rng.randrange(3, 10)
        ids = [f"o{k}" for k in range(n)]  # o0 the source, the last the sink, every other between them
        inner = ids[1:-1]
        edges = [(ids[0], b) for b in inner] + [(a, ids[-1]) for a in inner]
        edges += [(a, b) for a in inner for b in inner if rng.random() < 0.25 and (a < b or rng.random() < 0.3)]
        rng.shuffle(edges)
        ops = (Operator(ids[0], kind="source", rate=1.0), *(Operator(op) for op in inner),
               Operator(ids[-1], kind="sink"))
        topology = Topology("t", ops, tuple(Stream(a, b) for a, b in edges))
        looped += not topology.is_acyclic
        graph = topology.forward_graph
        assert topology.forward_streams == tuple(graph.has_edge(a, b) for a, b in edges)
        assert {op: list(p) for op, p in topology.forward_predecessors.items()} == \
            {op: list(graph.predecessors(op)) for op in ids}
    assert 20 < looped < 130, looped
    code = ("import sys\nfrom streamplace.bench.registry import resolve_cluster, resolve_topology\n"
            "from streamplace.perf.engines import EngineSettings\nfrom streamplace.schedulers import create\n"
            "t, c = resolve_topology('diamond'), resolve_cluster('rstorm-12')\n"
            "for engine in ('ideal', 'spark', 'storm'):\n"
            "    assert create('r-storm').plan(t, c, engine=EngineSettings(engine)).predicted.latency_ms > 0\n"
            "print('networkx' in sys.modules, 'numpy.ma' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"  # a plan and its prediction under every engine: neither imported


def test_sorted_unique_and_union_are_numpy_s() -> None:
    from streamplace.perf.cells import sorted_unique
    from streamplace.perf.network import _sorted_union

    rng = np.random.default_rng(2)
    for n in (0, 1, 2, 7, 1000):
        a = rng.integers(0, 50, n)
        assert np.array_equal(sorted_unique(a), np.unique(a)) and sorted_unique(a).dtype == a.dtype
        x, y = np.unique(rng.integers(0, 80, n)), np.unique(rng.integers(0, 80, n // 2 + 1))
        assert np.array_equal(_sorted_union(x, y), np.union1d(x, y))


def test_scale_benchmarks_wide_topology_loads() -> None:
    """benchmarks/scale.py's last figure, the load of a wide topology (run only without --only, so no smoke case
    reaches it): its generated spec is one the loader accepts. 300 operators; no assertion on the time."""
    from tests.scripts import load_script

    script = load_script(Path(__file__).resolve().parents[1] / "benchmarks" / "scale.py", "scale_benchmark")
    assert script.wide_topology_load(n=300, goal_s=1e9) is True
