"""Built-in benchmark topologies (Peng et al. 2015 micro-benchmarks and Yahoo topologies).

Layouts, parallelism and CPU points follow ``reference-data.md``. Each comes
in two variants, as in R-Storm's evaluation (§6.3):

* ``-net`` (network-bound): a tiny per-tuple cost (0.01 ms for bolts, 0.02 ms
  for spouts) and large tuples (1,000 B), spouts offering 1,000 tuples/s per
  task, so the NICs limit throughput;
* ``-cpu`` (computation-bound): spouts emit one tuple per 100 ms per task
  (10 tuples/s) as in the authors' runs, and each component's per-tuple cost
  is calibrated so that a replica at the offered rate uses exactly its
  declared CPU points — the declarations are then truthful, which is what
  R-Storm assumes.

Assumed where the sources are silent (and said here): Yahoo components'
CPU points (4–8) and 100 MB per task, selectivities (filters 0.8 as in the
authors' code, aggregate 0.5, joins 1.0).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import pairwise
from typing import Any

from streamplace.bench import continuum, nasiri_authors
from streamplace.bench.manufacturing import manufacturing
from streamplace.model.topology import Kind, Operator, Stream, Topology
from streamplace.perf.rates import operator_rates

NET_SPOUT_RATE = 1000.0  # tuples/s per spout task, network-bound variant
CPU_SPOUT_RATE = 10.0  # one tuple per 100 ms per spout task (reference-data.md)
NET_BYTES = 1000.0
NET_COST_BOLT = 0.01
NET_COST_SPOUT = 0.02


@dataclass(frozen=True)
class Component:
    id: str
    parallelism: int
    cpu: float
    selectivity: float = 1.0
    memory_mb: float = 150.0


def build(name: str, components: Sequence[Component], edges: Sequence[tuple[str, str]], variant: str) -> Topology:
    """Assemble a topology from components and edges in the ``net`` or ``cpu`` variant."""
    targets = {b for _, b in edges}
    sources_ = {a for a, _ in edges}
    spout_rate = NET_SPOUT_RATE if variant == "net" else CPU_SPOUT_RATE
    ops = []
    for c in components:
        kind: Kind = "source" if c.id not in targets else ("sink" if c.id not in sources_ else "operator")
        ops.append(Operator(
            id=c.id, kind=kind, rate=spout_rate * c.parallelism if kind == "source" else None,
            cost_ms=(NET_COST_SPOUT if kind == "source" else NET_COST_BOLT) if variant == "net" else 0.0,
            selectivity=c.selectivity, cpu=c.cpu, memory_mb=c.memory_mb,
            bytes_per_tuple=NET_BYTES if variant == "net" else 100.0, replicas=c.parallelism,
            logic={"name": "busy"},
        ))
    topo = Topology(f"{name}-{variant}", tuple(ops), tuple(Stream(a, b) for a, b in edges))
    return calibrate_costs(topo) if variant == "cpu" else topo


def calibrate_costs(topo: Topology) -> Topology:
    """Set each operator's cost_ms so a replica at the offered rate uses its declared CPU points.

    CPU points of a replica = r · e / 10 with r = λ_i / n_i, hence e = 10 · cpu / r.
    """
    rates = operator_rates(topo)
    ops = []
    for i, op in enumerate(topo.operators):
        per_replica = rates.input[i] / op.replicas
        cost = 10.0 * op.cpu / per_replica if per_replica > 0 else 0.0
        ops.append(replace(op, cost_ms=round(cost, 6)))
    return Topology(topo.name, tuple(ops), topo.streams)


# ----------------------------------------------------------- micro-benchmarks
def linear(variant: str) -> Topology:
    comps = [Component("spout", 4, 50), Component("bolt1", 6, 20), Component("bolt2", 6, 20),
             Component("bolt3", 6, 20)]
    return build("linear", comps, [("spout", "bolt1"), ("bolt1", "bolt2"), ("bolt2", "bolt3")], variant)


def diamond(variant: str) -> Topology:
    comps = [Component("spout", 2, 50), Component("bolt1", 4, 20), Component("bolt2", 4, 20),
             Component("bolt3", 4, 20), Component("bolt4", 4, 30), Component("output", 6, 30)]
    edges = [("spout", f"bolt{k}") for k in range(1, 5)] + [(f"bolt{k}", "output") for k in range(1, 5)]
    return build("diamond", comps, edges, variant)


def star(variant: str) -> Topology:
    comps = [Component("spout1", 2, 50), Component("spout2", 2, 50), Component("center", 6, 20),
             Component("out1", 6, 20), Component("out2", 6, 20)]
    edges = [("spout1", "center"), ("spout2", "center"), ("center", "out1"), ("center", "out2")]
    return build("star", comps, edges, variant)


# ----------------------------------------------------------- Yahoo topologies
def pageload(variant: str) -> Topology:
    comps = [Component("spout", 40, 8, memory_mb=100), Component("transform", 40, 6, memory_mb=100),
             Component("filter", 40, 4, 0.8, 100), Component("join", 15, 8, memory_mb=100),
             Component("filter2", 20, 4, 0.8, 100), Component("aggregate", 20, 6, 0.5, 100),
             Component("sink", 15, 4, memory_mb=100)]
    chain = [c.id for c in comps]
    return build("pageload", comps, list(pairwise(chain)), variant)


def processing(variant: str) -> Topology:
    comps = [Component("spout", 30, 8, memory_mb=100), Component("transform", 30, 6, memory_mb=100),
             Component("filter", 30, 4, 0.8, 100), Component("join1", 10, 8, memory_mb=100),
             Component("output1", 10, 4, memory_mb=100), Component("join2", 15, 8, memory_mb=100),
             Component("normalize", 10, 6, memory_mb=100), Component("output2", 10, 4, memory_mb=100)]
    edges = [("spout", "transform"), ("transform", "filter"), ("filter", "join1"), ("join1", "output1"),
             ("transform", "join2"), ("join2", "normalize"), ("normalize", "output2")]
    return build("processing", comps, edges, variant)


def storm_large(spouts: int = 5, spout_tasks: int = 30, bolts: int = 40, bolt_tasks: int = 114) -> Topology:
    """Storm's large-cluster test shape: 5 spouts × 30 tasks, 40 bolts × 114 tasks (≈ 4,700 replicas).

    The bolts form one chain per spout (``bolts / spouts`` deep) with a
    cross edge from every even level to the next chain, so the graph is a
    connected DAG with fan-in and fan-out.
    """
    depth = bolts // spouts
    ops: list[Operator] = []
    edges: list[tuple[str, str]] = []
    for s in range(spouts):
        ops.append(Operator(f"spout{s}", "source", rate=1000.0, cost_ms=0.05, cpu=20, memory_mb=128,
                            replicas=spout_tasks))
        for level in range(depth):
            last = level == depth - 1
            ops.append(Operator(f"bolt{s}_{level}", "sink" if last else "operator", cost_ms=0.05, cpu=10,
                                memory_mb=128, replicas=bolt_tasks))
            edges.append((f"spout{s}" if level == 0 else f"bolt{s}_{level - 1}", f"bolt{s}_{level}"))
            if level % 2 == 0 and not last and spouts > 1:
                edges.append((f"bolt{s}_{level}", f"bolt{(s + 1) % spouts}_{level + 1}"))
    return Topology("storm-large", tuple(ops), tuple(Stream(a, b) for a, b in edges))


BUILTIN_TOPOLOGIES: dict[str, tuple[Callable[[], Topology], str]] = {}
for _name, _fn, _desc in (
    ("linear", linear, "R-Storm Linear: spout(4) → bolt1(6) → bolt2(6) → bolt3(6)"),
    ("diamond", diamond, "R-Storm Diamond: spout(2) → 4 bolts(4) → output(6)"),
    ("star", star, "R-Storm Star: 2 spouts(2) → center(6) → out1(6), out2(6)"),
    ("pageload", pageload, "Yahoo PageLoad: 7-stage chain, 190 tasks"),
    ("processing", processing, "Yahoo Processing: two branches after transform, 145 tasks"),
):
    for _variant, _label in (("net", "network-bound"), ("cpu", "computation-bound")):
        BUILTIN_TOPOLOGIES[f"{_name}-{_variant}"] = (partial(_fn, _variant), f"{_desc} ({_label})")
    BUILTIN_TOPOLOGIES[_name] = (partial(_fn, "net"), f"alias of {_name}-net")
BUILTIN_TOPOLOGIES["storm-large"] = (storm_large, "Storm's large-cluster test shape: 5 spouts × 30, 40 bolts × 114")


# ------------------------------------------------------- Nasiri et al. 2023
#: Per-tuple cost on the reference machine (a Pentium, speed-up 1.0) of Nasiri et al.'s (2023) three CPU-bound
#: component kinds; the authors' simulator uses slopes in ratio about 1 : 2 : 4 (reference-data.md).
NASIRI_COST_MS = {"low": 1.0, "mid": 2.0, "high": 4.0}
NASIRI_MET = 2.0  # fixed CPU points per instance (assumed; the paper measures MET per task and machine)


def _nasiri(name: str, components: list[tuple[str, str]], edges: list[tuple[str, str]],
            rate: float = 100.0) -> Topology:
    """components: (id, kind) with kind in source/low/mid/high."""
    targets = {b for _, b in edges}
    sources_ = {a for a, _ in edges}
    ops = []
    for cid, kind in components:
        role: Kind = "source" if cid not in targets else ("sink" if cid not in sources_ else "operator")
        cost = 0.5 if kind == "source" else NASIRI_COST_MS[kind]
        ops.append(Operator(cid, role, rate=rate if role == "source" else None, cost_ms=cost, overhead=NASIRI_MET,
                            cpu=20, memory_mb=256, logic={"name": "busy"}))
    return Topology(name, tuple(ops), tuple(Stream(a, b) for a, b in edges))


def nasiri_linear() -> Topology:
    comps = [("spout", "source"), ("low", "low"), ("mid", "mid"), ("high", "high")]
    return _nasiri("nasiri-linear", comps, [("spout", "low"), ("low", "mid"), ("mid", "high")])


def nasiri_diamond() -> Topology:
    comps = [("spout", "source"), ("low", "low"), ("mid", "mid"), ("high", "high"), ("join", "low")]
    edges = [("spout", "low"), ("spout", "mid"), ("spout", "high"), ("low", "join"), ("mid", "join"),
             ("high", "join")]
    return _nasiri("nasiri-diamond", comps, edges)


def nasiri_star() -> Topology:
    comps = [("spout1", "source"), ("spout2", "source"), ("high", "high"), ("low", "low"), ("mid", "mid")]
    edges = [("spout1", "high"), ("spout2", "high"), ("high", "low"), ("high", "mid")]
    return _nasiri("nasiri-star", comps, edges, rate=50.0)


def rolling_count() -> Topology:
    """Storm-Benchmark RollingCount: spout → split (sentence → words) → rolling count by word."""
    ops = (Operator("spout", "source", rate=100.0, cost_ms=0.5, overhead=NASIRI_MET, memory_mb=256),
           Operator("split", cost_ms=2.0, overhead=NASIRI_MET, selectivity=1.0, memory_mb=256),
           Operator("count", "sink", cost_ms=2.5, overhead=NASIRI_MET, memory_mb=256))
    return Topology("rollingcount", ops, (Stream("spout", "split"), Stream("split", "count", "key", "word")))


def unique_visitor() -> Topology:
    """Storm-Benchmark UniqueVisitor: spout → view (parse page views) → unique visitors by URL."""
    ops = (Operator("spout", "source", rate=100.0, cost_ms=0.5, overhead=NASIRI_MET, memory_mb=256),
           Operator("view", cost_ms=3.0, overhead=NASIRI_MET, memory_mb=256),
           Operator("unique", "sink", cost_ms=3.0, overhead=NASIRI_MET, memory_mb=256))
    return Topology("uniquevisitor", ops, (Stream("spout", "view"), Stream("view", "unique", "key", "url")))


for _name, _build, _desc in (
    ("nasiri-linear", nasiri_linear, "Nasiri et al. 2023 Linear: spout → low → mid → high (1 : 2 : 4 ms per tuple)"),
    ("nasiri-diamond", nasiri_diamond, "Nasiri et al. 2023 Diamond: spout → low, mid, high → join"),
    ("nasiri-star", nasiri_star, "Nasiri et al. 2023 Star: 2 spouts → high → low, mid"),
    ("rollingcount", rolling_count, "Storm-Benchmark RollingCount: spout → split → count (two bolts)"),
    ("uniquevisitor", unique_visitor, "Storm-Benchmark UniqueVisitor: spout → view → unique (two bolts)"),
):
    BUILTIN_TOPOLOGIES[_name] = (_build, _desc)

BUILTIN_TOPOLOGIES["rollingcount-authors"] = (
    lambda: nasiri_authors.topology("rc"),
    "Nasiri et al.'s simulator: RollingCount's two bolts, α 10 and 1 (its profile: nasiri-authors-rc)")
BUILTIN_TOPOLOGIES["uniquevisitor-authors"] = (
    lambda: nasiri_authors.topology("uv"),
    "Nasiri et al.'s simulator: UniqueVisitor's two bolts, α 1 and 0.5 (its profile: nasiri-authors-uv)")


# ------------------------------------------------------------ Cardellini et al. 2017 (ODRP)
#: Service rates on the reference node, tuples/s (Cardellini et al. 2017 Table 2).
DEBS_MU = {"source": 284, "parser": 233, "filterByCoordinates": 253, "computeRouteID": 253, "metronome": 190,
           "countByWindow": 335, "partialRank": 2371, "globalRank": 185}


#: The Spark runtime's operator for each (spark/query/library/debs.py).
DEBS_LOGIC = {"source": "debs-trips", "parser": "debs-parse", "filterByCoordinates": "debs-area",
              "computeRouteID": "debs-route", "metronome": "debs-metronome", "countByWindow": "debs-count",
              "partialRank": "debs-partial-rank", "globalRank": "debs-global-rank"}


def debs2015_q1(rate: float = 100.0, pinned_to: str = "w1") -> Topology:
    """DEBS 2015 Grand Challenge Query 1 as deployed in Cardellini et al. 2017 (Fig. 3).

    source → parser → filterByCoordinates → computeRouteID → countByWindow → partialRank → globalRank,
    with the metronome (fed by the parser's event time) ticking every countByWindow replica. Service
    rates from Table 2 (cost_ms = 1000/μ). Source and globalRank are pinned; the metronome is not
    replicated (max_replicas 1); k = 3 elsewhere is the scheduler's default. Selectivities are assumed
    so the load matches what the paper reports: partialRank receives about 2,500 tuples/s at 80 t/s
    (5 % above its service rate) and about 30 % above it at 100 t/s — filterByCoordinates keeps 97 %,
    countByWindow emits 32 rank updates per input, partialRank forwards 2 %, the metronome ticks once
    per 100 events.
    """
    def op(op_id: str, kind: Kind = "operator", **kw: Any) -> Operator:
        return Operator(op_id, kind, cost_ms=1000.0 / DEBS_MU[op_id], memory_mb=256,
                        logic={"name": DEBS_LOGIC[op_id]}, **kw)

    ops = (
        op("source", "source", rate=rate, pinned=(pinned_to,), max_replicas=1),
        op("parser"),
        op("filterByCoordinates", selectivity=0.97),
        op("computeRouteID"),
        op("metronome", selectivity=0.01, max_replicas=1),
        op("countByWindow", selectivity=32.0),
        op("partialRank", selectivity=0.02),
        op("globalRank", "sink", pinned=(pinned_to,), max_replicas=1),
    )
    streams = (
        Stream("source", "parser"), Stream("parser", "filterByCoordinates"),
        Stream("filterByCoordinates", "computeRouteID"), Stream("computeRouteID", "countByWindow", "key", "route"),
        Stream("parser", "metronome"), Stream("metronome", "countByWindow", "all"),
        Stream("countByWindow", "partialRank", "key", "route"), Stream("partialRank", "globalRank"),
    )
    return Topology("debs2015-q1", ops, streams)


BUILTIN_TOPOLOGIES["debs2015-q1"] = (debs2015_q1, "Cardellini et al. 2017: DEBS 2015 Q1 (top-10 routes), 100 t/s")
BUILTIN_TOPOLOGIES["t-m1"] = (continuum.t_m1, "Ecker et al. 2025 T-M1: a sequence of 6 operations")
BUILTIN_TOPOLOGIES["t-m2"] = (continuum.t_m2, "Ecker et al. 2025 T-M2: one operation with 10 instances")
BUILTIN_TOPOLOGIES["t-m3"] = (continuum.t_m3, "Ecker et al. 2025 T-M3: source → one operation → sink")
for _seed in range(1, 10):
    BUILTIN_TOPOLOGIES[f"t-r{_seed}"] = (partial(continuum.t_r, _seed),
                                         f"Ecker et al. 2025 generator, seed {_seed}"
                                         + (" (with a cycle)" if _seed >= 8 else ""))
BUILTIN_TOPOLOGIES["manufacturing"] = (manufacturing, "Hochreiner et al. 2017: CREMA manufacturing, per machine")
