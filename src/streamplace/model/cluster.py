"""Clusters: nodes and the logical links between them (docs/architecture.md, "Vocabulary").

Link attributes (latency, availability, transfer cost) default by topology of
the racks and zones: same node, same rack, cross rack. Explicit pairs override
the defaults and are symmetric unless both directions are given (one rule:
:meth:`Cluster.pair_overrides`). Dense ``n × n`` matrices are built once per
cluster and cached; the model's hot paths use the structure instead
(:meth:`Cluster.default_latency`, :meth:`Cluster.latency_block`).
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import numpy as np

from streamplace.errors import ModelError, Problem
from streamplace.model.topology import ID_PATTERN, Topology

PairTable = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class Node:
    """One worker machine (Storm supervisor, Spark worker, VM).

    ``cpu`` in points (100 = one core), ``speedup`` relative to the reference
    processor on which operators' ``cost_ms`` was measured, ``slots`` the
    number of worker processes it offers, ``bandwidth_mbps`` its NIC
    (None = not a limit).
    """

    id: str
    cpu: float
    memory_mb: float
    type: str = "default"
    rack: str = "rack-0"
    zone: str = "zone-0"
    speedup: float = 1.0
    availability: float = 1.0
    cost_per_hour: float = 0.0
    slots: int = 4
    bandwidth_mbps: float | None = None
    coords: tuple[float, ...] | None = None

    def with_ids(self, ids: list[str]) -> list[Node]:
        """Nodes equal to this one but for their ids (a node group's), each a copy of this one's fields rather
        than a call of the dataclass's ``__init__`` (twelve frozen assignments): 100,000 nodes in about 0.1 s
        instead of 0.5 s. O(len(ids))."""
        fields = dict(vars(self))
        out = []
        for node_id in ids:
            node = object.__new__(Node)
            state = vars(node)
            state.update(fields)
            state["id"] = node_id
            out.append(node)
        return out


#: the longest one-way link latency a spec may give (ms; 10¹⁵, about 30,000 years): far beyond any real link —
#: a "never use this link" value such as 10¹² ms still fits — and far below where latency sums and squares
#: (ODRP's network usage and elastic energy, bytes/s · ms²) overflow
MAX_LINK_MS = 1e15
#: the highest transfer price per MB a spec may give
MAX_COST_PER_MB = 1e9


@dataclass(frozen=True)
class Links:
    """Default link attributes by locality, plus explicit per-pair overrides."""

    same_node_ms: float = 0.0
    same_rack_ms: float = 0.2
    cross_rack_ms: float = 2.0
    cross_zone_ms: float | None = None
    #: bandwidth of each rack's uplink to the other racks (Mbit/s, full duplex), shared by all the rack's
    #: cross-rack traffic; None: unlimited (only the NICs limit). R-Storm's testbed joins its two racks' VLANs
    #: through one 100 Mbit/s link (Peng et al. 2015 §6.1)
    rack_uplink_mbps: float | None = None
    latency_ms: PairTable = field(default_factory=lambda: MappingProxyType({}))
    availability: float = 1.0
    availability_pairs: PairTable = field(default_factory=lambda: MappingProxyType({}))
    cost_per_mb: float = 0.0
    cost_per_mb_pairs: PairTable = field(default_factory=lambda: MappingProxyType({}))
    #: one-way latencies someone measured, for some pairs (ms): what the latency-aware schedulers' network
    #: coordinates start from with ``latencies=estimated`` (Ecker et al. 2025 §4.1); ``latency_ms`` and the
    #: locality defaults stay what the plan is predicted with
    measured_latency_ms: PairTable = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Cluster:
    """An immutable, validated set of nodes and links."""

    name: str
    nodes: tuple[Node, ...]
    links: Links = field(default_factory=Links)
    utilization_limit: float = 1.0
    #: engine model parameters the spec gives (``spark.trigger_s``, ``storm.max_spout_pending``, …)
    engine_params: Mapping[str, float | int | str | None] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", tuple(self.nodes))
        object.__setattr__(self, "engine_params", MappingProxyType(dict(self.engine_params)))
        problems = validate_cluster(self)
        if problems:
            raise ModelError(problems)

    @cached_property
    def index(self) -> Mapping[str, int]:
        return MappingProxyType({n.id: i for i, n in enumerate(self.nodes)})

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes)

    def node(self, node_id: str) -> Node:
        return self.nodes[self.index[node_id]]

    def __len__(self) -> int:
        return len(self.nodes)

    # ---------------------------------------------------------- vector views
    @cached_property
    def cpu(self) -> np.ndarray:
        return _ro(np.array([n.cpu for n in self.nodes], dtype=float))

    @cached_property
    def memory(self) -> np.ndarray:
        return _ro(np.array([n.memory_mb for n in self.nodes], dtype=float))

    @cached_property
    def speedup(self) -> np.ndarray:
        return _ro(np.array([n.speedup for n in self.nodes], dtype=float))

    @cached_property
    def node_availability(self) -> np.ndarray:
        return _ro(np.array([n.availability for n in self.nodes], dtype=float))

    @cached_property
    def bandwidth_bytes(self) -> np.ndarray:
        """NIC capacity in bytes/s per node (inf where unlimited)."""
        return _ro(
            np.array(
                [np.inf if n.bandwidth_mbps is None else n.bandwidth_mbps * 1e6 / 8 for n in self.nodes],
                dtype=float,
            )
        )

    @property
    def rack_uplink_bytes(self) -> float:
        """Each rack's uplink to the other racks in bytes/s per direction (inf where unlimited)."""
        mbps = self.links.rack_uplink_mbps
        return np.inf if mbps is None else mbps * 1e6 / 8

    @cached_property
    def types(self) -> tuple[str, ...]:
        """Distinct node types in order of first appearance."""
        return tuple(dict.fromkeys(n.type for n in self.nodes))

    @cached_property
    def type_index(self) -> np.ndarray:
        pos = {t: i for i, t in enumerate(self.types)}
        return _ro(np.array([pos[n.type] for n in self.nodes], dtype=np.intp))

    @cached_property
    def racks(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n.rack for n in self.nodes))

    @cached_property
    def rack_index(self) -> np.ndarray:
        pos = {r: i for i, r in enumerate(self.racks)}
        return _ro(np.array([pos[n.rack] for n in self.nodes], dtype=np.intp))

    @cached_property
    def zone_index(self) -> np.ndarray:
        zones = {z: i for i, z in enumerate(dict.fromkeys(n.zone for n in self.nodes))}
        return _ro(np.array([zones[n.zone] for n in self.nodes], dtype=np.intp))

    # ---------------------------------------------------------- link matrices
    @cached_property
    def latency(self) -> np.ndarray:
        """One-way link latency in ms between every pair of nodes (n × n)."""
        every = np.arange(len(self))
        return _ro(self.latency_block(every, every))

    @cached_property
    def link_availability(self) -> np.ndarray:
        av = np.full((len(self), len(self)), self.links.availability, dtype=float)
        rows, cols, values = self.availability_pairs
        av[rows, cols] = values
        np.fill_diagonal(av, 1.0)  # a node talks to itself over a perfect link (ODRP §3.1)
        return _ro(av)

    @cached_property
    def link_cost_per_mb(self) -> np.ndarray:
        cost = np.full((len(self), len(self)), self.links.cost_per_mb, dtype=float)
        rows, cols, values = self.cost_pairs
        cost[rows, cols] = values
        np.fill_diagonal(cost, 0.0)
        return _ro(cost)

    @cached_property
    def network_distance(self) -> np.ndarray:
        """R-Storm's rack-aware network distance: 0 same node, 0.5 same rack, 1 across racks (n × n; one row
        without the matrix: :meth:`distance_from`)."""
        same_rack = self.rack_index[:, None] == self.rack_index[None, :]
        d = np.where(same_rack, 0.5, 1.0)
        np.fill_diagonal(d, 0.0)
        return _ro(d)

    def distance_from(self, u: int) -> np.ndarray:
        """Row ``u`` of :attr:`network_distance`, in O(n)."""
        d = np.where(self.rack_index == self.rack_index[u], 0.5, 1.0)
        d[u] = 0.0
        return d

    # ---------------------------------------------------------- links without n × n matrices
    @cached_property
    def link_group(self) -> np.ndarray:
        """Per node, its group for the default latency: nodes of one group are a rack apart (``same_rack_ms``); the
        rack, or the (zone, rack) pair when cross-zone links have their own latency."""
        if self.links.cross_zone_ms is None:
            return self.rack_index
        keys = self.zone_index * len(self.racks) + self.rack_index
        return _ro(np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.intp))

    def pair_overrides(self, table: PairTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A table of explicit pairs as it lands in the n × n matrix: (rows, columns, values), each pair given in
        both directions unless its reverse is given too, the diagonal left out."""
        given = {(a, b): v for a, row in table.items() for b, v in row.items()}
        cells = dict(given)
        for (a, b), v in given.items():
            cells.setdefault((b, a), v)
        pairs = [(self.index[a], self.index[b], v) for (a, b), v in cells.items() if a != b]
        if not pairs:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros(0)
        rows, cols, values = zip(*pairs, strict=True)
        return np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp), np.array(values, dtype=float)

    @cached_property
    def latency_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.pair_overrides(self.links.latency_ms)

    def measured_latency(self) -> np.ndarray:
        """The measured one-way latencies as an n × n matrix, NaN where a pair was not measured (the diagonal 0);
        a pair given one way holds both ways."""
        m = np.full((len(self), len(self)), np.nan)
        rows, cols, values = self.pair_overrides(self.links.measured_latency_ms)
        m[rows, cols] = values
        np.fill_diagonal(m, 0.0)
        return m

    @cached_property
    def cost_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.pair_overrides(self.links.cost_per_mb_pairs)

    @cached_property
    def availability_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.pair_overrides(self.links.availability_pairs)

    @property
    def has_link_cost(self) -> bool:
        """Does some link between two nodes cost money?"""
        return self.links.cost_per_mb > 0 or bool((self.cost_pairs[2] > 0).any())

    @property
    def has_link_failures(self) -> bool:
        """Is some link between two nodes less than always up?"""
        return self.links.availability < 1 or bool((self.availability_pairs[2] < 1).any())

    def default_latency(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The latency of node pairs (a[k], b[k]) by locality alone, no explicit pair: :attr:`latency` elementwise
        where no pair overrides it."""
        ln = self.links
        lat = np.where(self.rack_index[a] == self.rack_index[b], ln.same_rack_ms, ln.cross_rack_ms).astype(float)
        if ln.cross_zone_ms is not None:
            lat = np.where(self.zone_index[a] != self.zone_index[b], ln.cross_zone_ms, lat)
        return np.where(a == b, ln.same_node_ms, lat)

    def latency_block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``latency[np.ix_(rows, cols)]`` without building the n × n matrix: O(|rows| · |cols| + pairs)."""
        rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
        block = self.default_latency(rows[:, None], cols[None, :])
        pr, pc, pv = self.latency_pairs
        if len(pv):
            at_r = np.full(len(self), -1, dtype=np.intp)
            at_c = np.full(len(self), -1, dtype=np.intp)
            at_r[rows], at_c[cols] = np.arange(len(rows)), np.arange(len(cols))
            hit = (at_r[pr] >= 0) & (at_c[pc] >= 0)
            block[at_r[pr[hit]], at_c[pc[hit]]] = pv[hit]
        return block

def _ro(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def node_value_problems(n: Node) -> list[tuple[str, str, str]]:
    """(field, message, fix) of each out-of-range value of a node (its id aside)."""
    out = []
    for name in ("cpu", "memory_mb", "speedup"):
        value = getattr(n, name)
        if not value > 0:
            out.append((name, f"must be > 0, got {value}", "give a positive capacity"))
    if not 0 < n.availability <= 1:
        out.append(("availability", f"must be in (0, 1], got {n.availability}",
                    "give the probability the node is up, e.g. 0.999"))
    if n.cost_per_hour < 0:
        out.append(("cost_per_hour", f"must be >= 0, got {n.cost_per_hour}", "give a non-negative price"))
    if n.slots < 1:
        out.append(("slots", f"must be >= 1, got {n.slots}", "give 1 or more worker slots"))
    if n.bandwidth_mbps is not None and not n.bandwidth_mbps > 0:
        out.append(("bandwidth_mbps", f"must be > 0, got {n.bandwidth_mbps}",
                    "give the NIC speed in Mbit/s, or omit it"))
    return out


def validate_cluster(c: Cluster) -> list[Problem]:
    """Every problem of a cluster, each with its field path. O(nodes + link pairs): a node's values are checked
    once per distinct valid set of them (a node group's nodes share theirs), its id once per node."""
    problems: list[Problem] = []
    if not c.nodes:
        return [Problem("nodes", "the cluster has no nodes", "list at least one node")]
    if not 0 < c.utilization_limit <= 1.0:
        problems.append(Problem("utilization_limit", f"must be in (0, 1], got {c.utilization_limit}",
                                "use e.g. 1.0, or 0.95 as in the latency-aware paper"))
    known = _all_nodes_valid(c.nodes)
    if known is not None:  # the common case, in C-level passes; else every node's problems, each by its path
        return problems + _link_problems(c, known)
    seen: dict[str, int] = {}
    valid: set[tuple[object, ...]] = set()  # the sets of node values found valid
    for i, n in enumerate(c.nodes):
        p = f"nodes[{i}]"
        if not ID_PATTERN.match(n.id or ""):
            problems.append(Problem(f"{p}.id", f"invalid id {n.id!r}", "use letters, digits, '_', '.', '-'"))
        if n.id in seen:
            problems.append(Problem(f"{p}.id", f"duplicate node id {n.id!r} (first at nodes[{seen[n.id]}])",
                                    "give every node a unique id"))
        else:
            seen[n.id] = i
        values = (n.cpu, n.memory_mb, n.speedup, n.availability, n.cost_per_hour, n.slots, n.bandwidth_mbps)
        if values in valid:  # checked once per distinct set of values: a node group's nodes share theirs
            continue
        found = node_value_problems(n)
        if found:  # each node's own message (0 and 0.0 are one key but read differently)
            problems.extend(Problem(f"{p}.{name}", message, fix) for name, message, fix in found)
        else:
            valid.add(values)
    return problems + _link_problems(c, seen.keys())


#: a node's values that validate_cluster checks (its id aside), read in one C-level call per node
_NODE_VALUES = operator.attrgetter("cpu", "memory_mb", "speedup", "availability", "cost_per_hour", "slots",
                                   "bandwidth_mbps")
#: every id valid, joined by "/" (no valid id holds one)
_IDS_PATTERN = re.compile(r"[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*")


def _all_nodes_valid(nodes: tuple[Node, ...]) -> set[str] | None:
    """The node ids when every id is valid and unique and every node's values are (each distinct set of values
    checked once on one of its nodes), else None. O(nodes), in C-level passes (100,000 nodes: a few ms)."""
    ids = [n.id for n in nodes]
    known = set(ids)
    if len(known) != len(ids) or not all(isinstance(i, str) for i in ids):
        return None
    joined = "/".join(ids)
    if joined.count("/") != len(ids) - 1 or not _IDS_PATTERN.fullmatch(joined):
        return None
    firsts = dict(zip(map(_NODE_VALUES, nodes), nodes, strict=True))  # distinct values → a node with them
    if any(node_value_problems(n) for n in firsts.values()):
        return None
    return known


def _link_problems(c: Cluster, seen: Collection[str]) -> list[Problem]:
    """The problems of a cluster's links; ``seen``: its node ids."""
    problems: list[Problem] = []
    ln = c.links
    if ln.rack_uplink_mbps is not None and not ln.rack_uplink_mbps > 0:
        problems.append(Problem("links.rack_uplink_mbps", f"must be > 0, got {ln.rack_uplink_mbps}",
                                "give the racks' uplink speed in Mbit/s, or omit it (unlimited)"))
    for name in ("same_node_ms", "same_rack_ms", "cross_rack_ms", "cross_zone_ms", "cost_per_mb"):
        value = getattr(ln, name)
        high = MAX_COST_PER_MB if name == "cost_per_mb" else MAX_LINK_MS
        if value is not None and not 0 <= value <= high:
            problems.append(Problem(f"links.{name}", f"must be in [0, {high:g}], got {value:g}",
                                    "use a non-negative value" if value < 0 else
                                    f"no link is slower than {high:g}" + (" ms" if high == MAX_LINK_MS else " per MB")))
    if not 0 < ln.availability <= 1:
        problems.append(Problem("links.availability", "must be in (0, 1]", "e.g. 1.0 or 0.999"))
    for label, table, low, high in (
        ("latency_ms", ln.latency_ms, 0.0, MAX_LINK_MS),
        ("availability_pairs", ln.availability_pairs, 1e-300, 1.0),
        ("cost_per_mb_pairs", ln.cost_per_mb_pairs, 0.0, MAX_COST_PER_MB),
        ("measured_latency_ms", ln.measured_latency_ms, 0.0, MAX_LINK_MS),
    ):
        for a, row in table.items():
            if a not in seen:
                problems.append(Problem(f"links.{label}.{a}", f"unknown node {a!r}",
                                        f"use one of: {', '.join(sorted(seen))}"))
            for b, value in row.items():
                if b not in seen:
                    problems.append(Problem(f"links.{label}.{a}.{b}", f"unknown node {b!r}",
                                            f"use one of: {', '.join(sorted(seen))}"))
                if not low <= value <= high:
                    problems.append(Problem(f"links.{label}.{a}.{b}", f"value {value} out of range",
                                            f"use a value in [{low:g}, {high:g}]"))
    return problems


def check_compatible(topology: Topology, cluster: Cluster) -> list[Problem]:
    """Problems that need both specs: operators pinned to nodes the cluster lacks."""
    problems = []
    ids = set(cluster.index)
    for i, op in enumerate(topology.operators):
        for k, node in enumerate(op.pinned or ()):
            if node not in ids:
                shown = ", ".join(sorted(ids)[:12]) + (" …" if len(ids) > 12 else "")
                problems.append(
                    Problem(
                        f"operators[{i}].pinned[{k}]",
                        f"operator {op.id!r} is pinned to unknown node {node!r} of cluster {cluster.name!r}",
                        f"use one of: {shown}",
                    )
                )
    return problems


def scaled_cluster(cluster: Cluster, scale: float) -> Cluster:
    """The cluster as the quotas enforce it: every node's cpu points × ``scale`` (memory, speed-up, links kept)."""
    nodes = tuple(dataclasses.replace(n, cpu=n.cpu * scale) for n in cluster.nodes)
    return dataclasses.replace(cluster, nodes=nodes)
