"""Ecker et al.'s (2025) evaluation instances: the 11-worker continuum and its test topologies (§6.1).

* ``continuum-11``: w1 1.5 cores / 2048 MB; w2, w6, w7 1 core / 1024 MB; w3–w5 and w8–w11 0.3 cores /
  768 MB; utilization limit 95 %. Fig. 2's link latencies were lost: we assume a switch tree
  (reference-data.md): a core switch with w1 (1 ms); two edge switches 2 ms from the core, one with
  w2–w5, one with w6–w11, each worker 1 ms from its switch (so 2 ms within a switch, 5–6 ms across).
* ``t-m1`` (a sequence of 6 operations), ``t-m2`` (one operation with 10 instances: fan-out and load
  balancing), ``t-m3`` (the minimal topology: source → one operation → sink).
* ``t-r1`` … ``t-r9``: §6.1.2's generator — start from source → sink, repeatedly replace a random edge
  by one operation (60 %) or a diamond of two (40 %); selectivities drawn below and above 1; t-r8 and
  t-r9 also get a cycle. Seeded per topology (Java's Random with π's digits is not reproducible here;
  numpy's generator with seed n is). Each gets Table 1's sizes: its operation count (instead of one drawn
  uniformly from [3, 24]) and its operator (instance) count, the extra instances spread at random over
  the inner operations (the paper gives only the totals).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Kind, Operator, Stream, Topology


def continuum11() -> Cluster:
    caps = {"w1": (150.0, 2048.0)} | {w: (100.0, 1024.0) for w in ("w2", "w6", "w7")} | {
        w: (30.0, 768.0) for w in ("w3", "w4", "w5", "w8", "w9", "w10", "w11")}
    switch = {"w1": "core"} | {f"w{k}": "edge-a" for k in range(2, 6)} | {f"w{k}": "edge-b" for k in range(6, 12)}
    to_switch = {"w1": 1.0} | {f"w{k}": 1.0 for k in range(2, 12)}
    switch_to_core = {"core": 0.0, "edge-a": 2.0, "edge-b": 2.0}
    ids = [f"w{k}" for k in range(1, 12)]
    nodes = tuple(Node(w, cpu=caps[w][0], memory_mb=caps[w][1], type="worker", rack=switch[w], slots=4)
                  for w in ids)
    latency: dict[str, dict[str, float]] = {}
    for a_i, a in enumerate(ids):
        for b in ids[a_i + 1:]:
            if switch[a] == switch[b]:
                d = to_switch[a] + to_switch[b]
            else:
                d = to_switch[a] + switch_to_core[switch[a]] + switch_to_core[switch[b]] + to_switch[b]
            latency.setdefault(a, {})[b] = d
    return Cluster("continuum-11", nodes, Links(latency_ms=latency), utilization_limit=0.95)


def _ops(names: list[str], rng: np.random.Generator | None, replicas: dict[str, int] | None = None,
         selectivity: dict[str, float] | None = None, rate: float = 10.0) -> list[Operator]:
    out = []
    for k, name in enumerate(names):
        kind: Kind = "source" if k == 0 else ("sink" if k == len(names) - 1 else "operator")
        out.append(Operator(
            name, kind, rate=rate if kind == "source" else None,
            cost_ms=1.0 if rng is None else float(rng.uniform(0.5, 3.0)), overhead=1.0,
            selectivity=(selectivity or {}).get(name, 1.0), memory_mb=128,
            replicas=(replicas or {}).get(name, 1), logic={"name": "busy"}))
    return out


def t_m1() -> Topology:
    names = ["source", "op1", "op2", "op3", "op4", "sink"]
    return Topology("t-m1", tuple(_ops(names, None)), tuple(Stream(a, b) for a, b in pairwise(names)))


def t_m2() -> Topology:
    names = ["source", "work", "sink"]
    return Topology("t-m2", tuple(_ops(names, None, replicas={"work": 10})),
                    (Stream("source", "work"), Stream("work", "sink")))


def t_m3() -> Topology:
    names = ["source", "work", "sink"]
    return Topology("t-m3", tuple(_ops(names, None)), (Stream("source", "work"), Stream("work", "sink")))


#: Ecker et al. 2025 Table 1: operations and operators (instances), source and sink included
TABLE1 = {1: (16, 30), 2: (7, 12), 3: (12, 22), 4: (15, 28), 5: (11, 20), 6: (11, 20), 7: (22, 42), 8: (8, 14),
          9: (10, 18)}


def random_topology(seed: int, cyclic: bool = False, n_operations: int | None = None, name: str | None = None,
                    n_instances: int | None = None) -> Topology:
    """§6.1.2's generator (seeded): grow source → sink by single (60 %) or diamond (40 %) insertions.
    ``n_instances``: the instances of all operations together (source and sink one each), the extra ones
    spread at random over the inner operations; None draws 1–3 per inner operation."""
    rng = np.random.default_rng(seed)
    target = n_operations if n_operations is not None else int(rng.integers(3, 25))
    target = max(target, 3 if not cyclic else 5)  # a cycle needs two inner operations, one upstream
    edges: list[tuple[str, str]] = [("source", "sink")]
    names = ["source", "sink"]
    counter = 0
    while len(names) < target:
        a, b = edges.pop(int(rng.integers(len(edges))))
        if rng.random() < 0.6 or len(names) + 2 > target:
            counter += 1
            x = f"op{counter}"
            names.insert(-1, x)
            edges += [(a, x), (x, b)]
        else:
            counter += 2
            x, y = f"op{counter - 1}", f"op{counter}"
            names[-1:-1] = [x, y]
            edges += [(a, x), (a, y), (x, b), (y, b)]
    selectivity = {n: float(rng.choice([rng.uniform(0.3, 0.95), rng.uniform(1.05, 2.0)])) for n in names[1:-1]}
    replicas = {n: int(rng.integers(1, 4)) for n in names[1:-1]}
    if n_instances is not None:
        inner = names[1:-1]
        extra = n_instances - len(names)
        if extra < 0 or (not inner and extra):
            raise ValueError(f"{n_instances} instances cannot cover {len(names)} operations")
        replicas = dict.fromkeys(inner, 1)
        for k in rng.integers(len(inner), size=extra) if inner else []:
            replicas[inner[int(k)]] += 1
    if cyclic:  # a feedback edge from an inner operation back to one of its inner ancestors (damped)
        inner = names[1:-1]
        ancestors = _inner_ancestors(names, edges)
        late = next(n for n in sorted(inner, key=lambda n: -len(ancestors[n])))
        early = sorted(ancestors[late])[int(rng.integers(len(ancestors[late])))] if ancestors[late] else late
        edges.append((late, early))
        selectivity[late] = min(selectivity[late], 0.5)
        for n in inner:
            selectivity[n] = min(selectivity[n], 0.9)
    ops = _ops(names, rng, replicas, selectivity)
    return Topology(name or f"random-{seed}", tuple(ops), tuple(Stream(a, b) for a, b in edges))


def _inner_ancestors(names: list[str], edges: list[tuple[str, str]]) -> dict[str, set[str]]:
    import networkx as nx

    g = nx.DiGraph(edges)
    g.add_nodes_from(names)
    return {n: nx.ancestors(g, n) - {"source"} for n in names[1:-1]}


def t_r(k: int) -> Topology:
    operations, instances = TABLE1[k]
    return random_topology(seed=k, cyclic=k >= 8, n_operations=operations, name=f"t-r{k}", n_instances=instances)
