"""Topologies: operators joined by streams (docs/architecture.md, "Vocabulary").

A topology is a directed graph. Sources have no inputs and an offered rate;
sinks have no outputs. Cycles are allowed (feedback loops) but reported by
:meth:`Topology.cycles` so callers can warn about them.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from streamplace.errors import ModelError, Problem

if TYPE_CHECKING:
    import networkx as nx

Kind = Literal["source", "operator", "sink"]
GroupingKind = Literal["shuffle", "key", "all"]

ID_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]+$")

#: Storm's defaults per task (reference-data.md): 10 CPU points, 100 MB on-heap + 50 MB off-heap.
DEFAULT_CPU_POINTS = 10.0
DEFAULT_MEMORY_MB = 150.0
DEFAULT_BYTES_PER_TUPLE = 100.0


@dataclass(frozen=True)
class Operator:
    """One logical operator; its replicas are what schedulers place.

    ``cost_ms`` is CPU milliseconds per tuple on a speed-up 1.0 node (e),
    ``overhead`` the fixed CPU points per replica (MET), ``cpu`` and
    ``memory_mb`` the *declared* per-replica demands R-Storm-style schedulers
    use. ``rate`` is the offered rate of a source in tuples/s.
    """

    id: str
    kind: Kind = "operator"
    rate: float | None = None
    cost_ms: float = 0.0
    overhead: float = 0.0
    selectivity: float = 1.0
    cpu: float = DEFAULT_CPU_POINTS
    memory_mb: float = DEFAULT_MEMORY_MB
    bytes_per_tuple: float = DEFAULT_BYTES_PER_TUPLE
    replicas: int = 1
    max_replicas: int | None = None
    pinned: tuple[str, ...] | None = None
    unit_cost: float = 1.0
    logic: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def is_source(self) -> bool:
        return self.kind == "source"

    @property
    def is_sink(self) -> bool:
        return self.kind == "sink"


@dataclass(frozen=True)
class Stream:
    """A directed stream; ``grouping`` says how tuples split over the target's replicas."""

    source: str
    target: str
    grouping: GroupingKind = "shuffle"
    key: str | None = None
    bytes_per_tuple: float | None = None

    @property
    def grouping_text(self) -> str:
        return f"key:{self.key}" if self.grouping == "key" else self.grouping


def parse_grouping(text: str) -> tuple[GroupingKind, str | None]:
    """Parse ``shuffle``, ``all`` or ``key:<field>``; raise ValueError otherwise."""
    text = text.strip()
    if text == "shuffle":
        return "shuffle", None
    if text == "all":
        return "all", None
    if text.startswith("key:") and len(text) > 4:
        return "key", text[4:]
    raise ValueError(f"unknown grouping {text!r}")


@dataclass(frozen=True)
class Topology:
    """An immutable, validated operator graph.

    Construction validates the whole graph at once and raises
    :class:`~streamplace.errors.ModelError` listing every problem with its
    field path (``operators[2].rate``) and a fix.
    """

    name: str
    operators: tuple[Operator, ...]
    streams: tuple[Stream, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "operators", tuple(self.operators))
        object.__setattr__(self, "streams", tuple(self.streams))
        problems = validate_topology(self)
        if problems:
            raise ModelError(problems)

    # ----------------------------------------------------------------- lookup
    @cached_property
    def index(self) -> Mapping[str, int]:
        """Operator id → position in :attr:`operators`."""
        return MappingProxyType({op.id: i for i, op in enumerate(self.operators)})

    def op(self, op_id: str) -> Operator:
        return self.operators[self.index[op_id]]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(op.id for op in self.operators)

    @cached_property
    def sources(self) -> tuple[Operator, ...]:
        return tuple(op for op in self.operators if op.is_source)

    @cached_property
    def sinks(self) -> tuple[Operator, ...]:
        return tuple(op for op in self.operators if op.is_sink)

    @cached_property
    def graph(self) -> nx.MultiDiGraph:
        """The operator graph (a multigraph: two streams may join the same pair). networkx is imported here, on
        first use: a loop-free topology is ordered and checked without it (0.16 s of the command line's start)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.add_nodes_from(self.ids)
        for k, s in enumerate(self.streams):
            g.add_edge(s.source, s.target, key=k)
        return g

    def successors(self, op_id: str) -> list[str]:
        return list(dict.fromkeys(s.target for s in self.streams if s.source == op_id))

    def predecessors(self, op_id: str) -> list[str]:
        return list(dict.fromkeys(s.source for s in self.streams if s.target == op_id))

    @cached_property
    def cycles(self) -> tuple[tuple[str, ...], ...]:
        """Strongly connected components that form loops (empty for a DAG). O(operators + streams)."""
        if self._lex_order is not None:
            return ()
        import networkx as nx

        looped = {s.source for s in self.streams if s.source == s.target}
        out = []
        for comp in nx.strongly_connected_components(self.graph):
            if len(comp) > 1 or not looped.isdisjoint(comp):
                out.append(tuple(sorted(comp, key=self.index.__getitem__)))
        return tuple(out)

    @property
    def is_acyclic(self) -> bool:
        return not self.cycles

    def cycle_warnings(self) -> list[str]:
        return [
            f"topology {self.name!r} has a cycle through {' → '.join(c)}; rates on it converge "
            "only while the loop gain (product of selectivities) is below 1"
            for c in self.cycles
        ]

    @cached_property
    def order_sets(self) -> tuple[frozenset, ...]:
        """Operators in topological order as sets (Ecker et al.'s (2025) Algorithm 3 on cyclic graphs)."""
        # lazy: networkx
        from streamplace.model.ordering import cyclic_topological_order

        return tuple(cyclic_topological_order(self.ids, ((s.source, s.target) for s in self.streams)))

    @cached_property
    def acyclic_order(self) -> tuple[str, ...]:
        """A topological order; on cyclic graphs the Eades–Lin–Smyth order of Ecker et al. 2025 (Algorithm 3)."""
        if self._lex_order is not None:
            return self._lex_order
        return tuple(v for group in self.order_sets for v in sorted(group, key=self.index.__getitem__))

    @cached_property
    def _lex_order(self) -> tuple[str, ...] | None:
        """The operators in the smallest topological order by position (what networkx's
        ``lexicographical_topological_sort`` keyed by position gives), or None when the graph has a loop.
        O((operators + streams) · log operators)."""
        return lex_topological_order(self.ids, ((s.source, s.target) for s in self.streams))

    @cached_property
    def forward_streams(self) -> tuple[bool, ...]:
        """Per stream, whether it points forward in :attr:`acyclic_order` — the streams :attr:`forward_graph` keeps
        — without networkx (its import is 0.15 s of the command line's start, and a plan's latency asks this).
        O(operators + streams)."""
        position = {op: k for k, op in enumerate(self.acyclic_order)}
        return tuple(position[s.source] < position[s.target] for s in self.streams)

    @cached_property
    def forward_predecessors(self) -> Mapping[str, tuple[str, ...]]:
        """Per operator, the operators feeding it over forward streams, each once, in the order of the streams
        (``forward_graph.predecessors``'s order). O(operators + streams)."""
        preds: dict[str, dict[str, None]] = {op: {} for op in self.ids}
        for s, forward in zip(self.streams, self.forward_streams, strict=True):
            if forward:
                preds[s.target][s.source] = None
        return MappingProxyType({op: tuple(p) for op, p in preds.items()})

    @cached_property
    def forward_graph(self) -> nx.DiGraph:
        """The graph without the edges that point backwards in :attr:`acyclic_order` (a DAG)."""
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(self.ids)
        position = {op: k for k, op in enumerate(self.acyclic_order)}
        g.add_edges_from((s.source, s.target) for s in self.streams if position[s.source] < position[s.target])
        return g

    def with_replicas(self, counts: Mapping[str, int]) -> Topology:
        """A copy with the requested parallelism replaced for the given operators."""
        ops = tuple(
            replace(op, replicas=int(counts[op.id])) if op.id in counts else op
            for op in self.operators
        )
        return Topology(self.name, ops, self.streams)

    def total_replicas(self) -> int:
        return sum(op.replicas for op in self.operators)


def infer_kinds(op_ids: list[str], streams: list[Stream] | tuple[Stream, ...]) -> dict[str, Kind]:
    """Each operator's kind from the streams: source when nothing flows in, sink when nothing flows out, else
    operator. O(operators + streams)."""
    has_in = {s.target for s in streams}
    has_out = {s.source for s in streams}
    return {op_id: "source" if op_id not in has_in else "sink" if op_id not in has_out else "operator"
            for op_id in op_ids}


def validate_topology(t: Topology) -> list[Problem]:
    """Every problem of a topology, each with its field path and a fix."""
    problems: list[Problem] = []
    if not t.name:
        problems.append(Problem("name", "topology name is empty", "give the topology a name"))
    if not t.operators:
        problems.append(Problem("operators", "no operators", "list at least one source"))
        return problems
    seen: dict[str, int] = {}
    for i, op in enumerate(t.operators):
        p = f"operators[{i}]"
        if not ID_PATTERN.match(op.id or ""):
            problems.append(
                Problem(f"{p}.id", f"invalid id {op.id!r}", "use letters, digits, '_', '.', '-'")
            )
        if op.id in seen:
            problems.append(
                Problem(
                    f"{p}.id",
                    f"duplicate operator id {op.id!r} (first at operators[{seen[op.id]}])",
                    "give every operator a unique id",
                )
            )
        else:
            seen[op.id] = i
        problems.extend(_validate_operator(op, p))
    ids = set(seen)
    incoming = {s.target for s in t.streams}
    outgoing = {s.source for s in t.streams}
    for k, s in enumerate(t.streams):
        p = f"streams[{k}]"
        for end, value in (("from", s.source), ("to", s.target)):
            if value not in ids:
                problems.append(
                    Problem(
                        f"{p}.{end}",
                        f"unknown operator {value!r}",
                        f"use one of: {', '.join(sorted(ids))}",
                    )
                )
        if s.grouping not in ("shuffle", "key", "all"):
            problems.append(
                Problem(f"{p}.grouping", f"unknown grouping {s.grouping!r}",
                        "use shuffle, all or key:<field>")
            )
        if s.grouping == "key" and not s.key:
            problems.append(
                Problem(f"{p}.grouping", "key grouping without a field", "write key:<field>")
            )
        if s.bytes_per_tuple is not None and s.bytes_per_tuple < 0:
            problems.append(
                Problem(f"{p}.bytes_per_tuple", "must be >= 0", "give a non-negative size")
            )
    for i, op in enumerate(t.operators):
        if op.is_source and op.id in incoming:
            src = next(s.source for s in t.streams if s.target == op.id)
            problems.append(
                Problem(
                    f"operators[{i}].kind",
                    f"source {op.id!r} has an input stream from {src!r}",
                    "make it kind: operator, or remove the stream into it",
                )
            )
        if op.is_sink and op.id in outgoing:
            problems.append(
                Problem(
                    f"operators[{i}].kind",
                    f"sink {op.id!r} has an output stream",
                    "make it kind: operator, or remove the stream out of it",
                )
            )
        if op.kind == "operator" and op.id not in outgoing:  # its output would reach no sink: throughput 0
            problems.append(
                Problem(
                    f"operators[{i}].kind",
                    f"operator {op.id!r} has no output stream, so nothing it emits reaches a sink (the "
                    "topology's throughput would be 0)",
                    "make it kind: sink (or leave kind out: it is inferred), or add a stream out of it",
                )
            )
    if not any(op.is_source for op in t.operators):
        problems.append(
            Problem(
                "operators",
                "the topology has no source",
                "mark the operator(s) that emit data with kind: source and a rate",
            )
        )
    first: dict[tuple[str, str, str, str | None], int] = {}
    for k, s in enumerate(t.streams):  # the same stream twice doubles what its target receives
        key = (s.source, s.target, s.grouping, s.key)
        if key in first:
            problems.append(Problem(f"streams[{k}]", f"the same stream as streams[{first[key]}] ({s.source} → "
                                                     f"{s.target}, {s.grouping_text}): its target would receive "
                                                     "every tuple twice", "remove the duplicate"))
        else:
            first[key] = k
    if not problems:
        problems.extend(_unreachable_sinks(t))
    return problems


def reaching_a_sink(t: Topology) -> set[str]:
    """The operators from which a stream path leads to a sink (the sinks included). O(operators + streams)."""
    upstream: dict[str, list[str]] = {}
    for s in t.streams:
        upstream.setdefault(s.target, []).append(s.source)
    reaches = {op.id for op in t.operators if op.is_sink}
    frontier = list(reaches)
    while frontier:
        for u in upstream.get(frontier.pop(), ()):
            if u not in reaches:
                reaches.add(u)
                frontier.append(u)
    return reaches


def _unreachable_sinks(t: Topology) -> list[Problem]:
    """Operators on a loop from which no stream path leads to a sink (a loop with no way out): what they process
    never reaches the topology's output, so its throughput would be 0. Loop-free operators without a sink
    downstream are left alone (the profiler's probe topologies end in a source or a bare chain on purpose).
    O(operators + streams)."""
    if lex_topological_order(t.ids, ((s.source, s.target) for s in t.streams)) is not None:
        return []  # no loop
    import networkx as nx

    g = nx.DiGraph((s.source, s.target) for s in t.streams)
    looped = {v for comp in nx.strongly_connected_components(g) if len(comp) > 1 for v in comp}
    looped |= {s.source for s in t.streams if s.source == s.target}
    if not looped:
        return []
    reaches = reaching_a_sink(t)
    return [Problem(f"operators[{i}]", f"no stream path leads from {op.id!r} to a sink (its output only circles "
                                       "among operators that never reach one), so nothing it processes is output",
                    "add a stream from the loop to a sink, or remove the loop")
            for i, op in enumerate(t.operators) if op.id in looped and op.id not in reaches]


def _validate_operator(op: Operator, p: str) -> list[Problem]:
    out: list[Problem] = []
    if op.kind not in ("source", "operator", "sink"):
        out.append(Problem(f"{p}.kind", f"unknown kind {op.kind!r}", "use source, operator or sink"))
    if op.is_source:
        if op.rate is None:
            out.append(Problem(f"{p}.rate", f"source {op.id!r} has no rate",
                               "give its offered rate in tuples/s, e.g. rate: 1000"))
        elif not op.rate > 0:
            out.append(Problem(f"{p}.rate", f"rate must be > 0, got {op.rate}",
                               "give a positive offered rate in tuples/s"))
    elif op.rate is not None:
        out.append(Problem(f"{p}.rate", f"only sources have a rate ({op.id!r} is {op.kind})",
                           "remove rate, or make the operator kind: source"))
    for name in ("cost_ms", "overhead", "cpu", "bytes_per_tuple", "unit_cost"):
        value = getattr(op, name)
        if value < 0:
            out.append(Problem(f"{p}.{name}", f"must be >= 0, got {value}", "use a non-negative value"))
    if op.overhead >= 100:
        out.append(Problem(f"{p}.overhead", f"MET of {op.overhead} points leaves no CPU for tuples "
                           "(a replica is one thread: 100 points)", "use an overhead below 100"))
    if not op.memory_mb > 0:
        out.append(Problem(f"{p}.memory_mb", f"must be > 0, got {op.memory_mb}",
                           "give the per-replica memory in MB"))
    if op.selectivity < 0:
        out.append(Problem(f"{p}.selectivity", f"selectivity must be >= 0, got {op.selectivity}",
                           "use the number of output tuples per input tuple (0 for a sink)"))
    if op.replicas < 1:
        out.append(Problem(f"{p}.replicas", f"must be >= 1, got {op.replicas}", "use 1 or more"))
    if op.max_replicas is not None and op.max_replicas < max(1, op.replicas):
        out.append(Problem(f"{p}.max_replicas",
                           f"max_replicas {op.max_replicas} is below replicas {op.replicas}",
                           "raise max_replicas or lower replicas"))
    if op.pinned is not None and len(op.pinned) == 0:
        out.append(Problem(f"{p}.pinned", "empty list of allowed nodes",
                           "list at least one node id, or drop pinned"))
    return out


def lex_topological_order(ids: tuple[str, ...], edges: Iterable[tuple[str, str]]) -> tuple[str, ...] | None:
    """``ids`` in the smallest topological order by their position in ``ids`` (Kahn's algorithm with a heap: the
    order networkx's ``lexicographical_topological_sort`` gives with that key, which is unique), or None when the
    edges close a loop (a self-loop included). Edges may repeat (a multigraph). O((ids + edges) · log ids)."""
    at = {op: k for k, op in enumerate(ids)}
    indegree = [0] * len(ids)
    after: list[list[int]] = [[] for _ in ids]
    for a, b in edges:
        after[at[a]].append(at[b])
        indegree[at[b]] += 1
    ready = [k for k, d in enumerate(indegree) if d == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        k = heapq.heappop(ready)
        order.append(ids[k])
        for j in after[k]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(ready, j)
    return tuple(order) if len(order) == len(ids) else None
