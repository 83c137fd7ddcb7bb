"""Load and save spec files. Every failure names the file, the field path and the fix.

pydantic and the schema (spec/schema.py) load on the first spec file that needs them: built-in names skip them,
and so does a topology or cluster file that spec/plain.py finds plainly valid (0.1–0.15 s of a plan's start);
any other document, and every document with a problem, is validated by pydantic as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from streamplace.errors import ModelError, Problem, SpecError
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Operator, Stream, Topology, infer_kinds, parse_grouping
from streamplace.perf.engines import EngineSettings
from streamplace.spec import plain
from streamplace.spec.derive import model_kwargs
from streamplace.spec.documents import read_document
from streamplace.spec.validate import validate_document

Source = str | Path | Mapping[str, Any]


def _document(source: Source) -> tuple[dict[str, Any], str]:
    if isinstance(source, Mapping):
        return dict(source), "<spec>"
    return read_document(source), str(source)


def _raise_with_source(exc: ModelError, source: str) -> SpecError:
    return SpecError(exc.problems, source)


# ---------------------------------------------------------------- topology
def load_topology(source: Source) -> Topology:
    """Load a topology spec, or import a Storm Flux YAML file (recognized by ``spouts``/``bolts``)."""
    doc, name = _document(source)
    if is_flux(doc):
        return load_flux(doc, name)
    spec: Any = plain.topology(doc)
    if spec is None:  # not plainly valid: pydantic accepts it or names every problem
        # lazy: command-line start (pydantic)
        from streamplace.spec.schema import TopologySpec

        spec = validate_document(TopologySpec, doc, name)
    return topology_from_spec(spec, name)


def is_flux(doc: Mapping[str, Any]) -> bool:
    return bool({"spouts", "bolts", "includes", "topologySource"} & set(doc))


def load_flux(doc: dict[str, Any], name: str, default_rate: float | None = None,
              custom_as_shuffle: bool = False) -> Topology:
    """A Storm Flux document as a topology: includes merged, converted, validated, every problem named by the
    Flux file's own fields. ``custom_as_shuffle`` plans CUSTOM groupings as shuffle (else refused)."""
    # lazy: command-line start (pydantic)
    from streamplace.spec.flux import DEFAULT_FLUX_RATE, flux_paths, flux_to_topology_doc, read_includes
    from streamplace.spec.schema import TopologySpec

    flux = read_includes(doc, name)
    converted = flux_to_topology_doc(flux, name, DEFAULT_FLUX_RATE if default_rate is None else default_rate,
                                     custom_as_shuffle=custom_as_shuffle)
    try:  # the converted topology's problems, named by the Flux file's own fields
        return topology_from_spec(validate_document(TopologySpec, converted, name), name)
    except ModelError as exc:
        raise SpecError(flux_paths(exc.problems, flux), name) from None


def topology_from_spec(spec: Any, source: str = "<spec>") -> Topology:
    problems: list[Problem] = []
    streams: list[Stream] = []
    for k, s in enumerate(spec.streams):
        try:
            grouping, key = parse_grouping(s.grouping)
        except ValueError:
            problems.append(Problem(f"streams[{k}].grouping", f"unknown grouping {s.grouping!r}",
                                    "use shuffle, all or key:<field>"))
            grouping, key = "shuffle", None
        streams.append(Stream(s.from_, s.to, grouping, key, s.bytes_per_tuple))
    ops = []
    inferred = infer_kinds([o.id for o in spec.operators], streams)
    for o in spec.operators:
        kind = o.kind or inferred[o.id]
        logic = MappingProxyType(o.logic.model_dump()) if o.logic else MappingProxyType({})
        ops.append(Operator(**model_kwargs(Operator, o, kind=kind, logic=logic)))
    try:
        topo = Topology(spec.name, tuple(ops), tuple(streams))
    except ModelError as exc:
        raise SpecError(problems + exc.problems, source) from None
    if problems:
        raise SpecError(problems, source)
    return topo


def topology_to_doc(t: Topology) -> dict[str, Any]:
    """A spec document (what ``load_topology`` reads back) for a topology."""
    ops = []
    for op in t.operators:
        d: dict[str, Any] = {"id": op.id, "kind": op.kind}
        if op.rate is not None:
            d["rate"] = op.rate
        d.update(cost_ms=op.cost_ms, overhead=op.overhead, selectivity=op.selectivity, cpu=op.cpu,
                 memory_mb=op.memory_mb, bytes_per_tuple=op.bytes_per_tuple, replicas=op.replicas)
        if op.max_replicas is not None:
            d["max_replicas"] = op.max_replicas
        if op.pinned is not None:
            d["pinned"] = list(op.pinned)
        if op.unit_cost != 1.0:
            d["unit_cost"] = op.unit_cost
        if op.logic:
            d["logic"] = dict(op.logic)
        ops.append(d)
    streams = []
    for s in t.streams:
        d = {"from": s.source, "to": s.target, "grouping": s.grouping_text}
        if s.bytes_per_tuple is not None:
            d["bytes_per_tuple"] = s.bytes_per_tuple
        streams.append(d)
    return {"name": t.name, "operators": ops, "streams": streams}


def dump_topology(t: Topology) -> str:
    return yaml.safe_dump(topology_to_doc(t), sort_keys=False)


# ----------------------------------------------------------------- cluster
def load_cluster(source: Source) -> Cluster:
    doc, name = _document(source)
    spec: Any = plain.cluster(doc)
    if spec is None:  # not plainly valid: pydantic accepts it or names every problem
        # lazy: command-line start (pydantic)
        from streamplace.spec.schema import ClusterSpec

        spec = validate_document(ClusterSpec, doc, name)
    total = sum(n.count or 1 for n in spec.nodes)
    if total > plain.MAX_NODES:
        raise SpecError([Problem("nodes", f"the node groups add up to {total:,} nodes; a cluster has at most "
                                          f"{plain.MAX_NODES:,}",
                                 "plan a part of the cluster, or fewer, larger nodes")], name)
    nodes: list[Node] = []
    for n in spec.nodes:  # a group's fields are read and its node built once: its nodes differ only in their ids
        ids = group_ids(n.id, n.count)
        first = Node(**model_kwargs(Node, n, exclude=("id",)), id=ids[0])
        nodes.append(first)
        nodes.extend(first.with_ids(ids[1:]))
    links = Links(**model_kwargs(Links, spec.links))
    engine = {f"{eng}.{key}": value for eng, block in spec.engine.items() for key, value in block.items()}
    if engine:  # checked here, so a bad key names this file
        try:
            EngineSettings("ideal").with_params(engine, "engine")
        except ModelError as exc:
            raise _raise_with_source(exc, name) from None
    try:
        return Cluster(spec.name, tuple(nodes), links, spec.utilization_limit, engine)
    except ModelError as exc:
        if any(n.count is not None for n in spec.nodes):
            exc = ModelError(_spec_paths(exc.problems, spec))
        raise _raise_with_source(exc, name) from None


def _spec_paths(problems: list[Problem], spec: Any) -> list[Problem]:
    """Problems found on the expanded nodes, named by the file's entries (``nodes[3]``, the group that made
    node 57), each once."""
    entry = [j for j, n in enumerate(spec.nodes) for _ in range(n.count or 1)]
    out: dict[tuple[str, str], Problem] = {}
    for pr in problems:
        path, message = pr.path, pr.message
        if path.startswith("nodes["):
            i = int(path[6:path.index("]")])
            path = f"nodes[{entry[i]}]{path[path.index(']') + 1:]}"
            message = re.sub(r"\(first at nodes\[(\d+)\]\)", lambda m: f"(first at nodes[{entry[int(m[1])]}])",
                             message)
        out.setdefault((path, message), Problem(path, message, pr.fix))
    return list(out.values())


def group_ids(node_id: str, count: int | None) -> list[str]:
    """The ids of a node entry: itself, or ``ID-1`` … ``ID-N`` for a group of ``count`` (zero-padded)."""
    if count is None:
        return [node_id]
    width = len(str(count))
    return [f"{node_id}-{k:0{width}d}" for k in range(1, count + 1)]


def cluster_to_doc(c: Cluster) -> dict[str, Any]:
    nodes = []
    for n in c.nodes:
        d: dict[str, Any] = {"id": n.id, "type": n.type, "rack": n.rack, "zone": n.zone, "cpu": n.cpu,
                             "memory_mb": n.memory_mb, "speedup": n.speedup, "availability": n.availability,
                             "cost_per_hour": n.cost_per_hour, "slots": n.slots}
        if n.bandwidth_mbps is not None:
            d["bandwidth_mbps"] = n.bandwidth_mbps
        nodes.append(d)
    ln = c.links
    engine: dict[str, dict[str, Any]] = {}
    for key, value in c.engine_params.items():
        head, _, rest = key.partition(".")
        engine.setdefault(head, {})[rest] = value
    links: dict[str, Any] = {"same_node_ms": ln.same_node_ms, "same_rack_ms": ln.same_rack_ms,
                             "cross_rack_ms": ln.cross_rack_ms}
    if ln.cross_zone_ms is not None:
        links["cross_zone_ms"] = ln.cross_zone_ms
    if ln.rack_uplink_mbps is not None:
        links["rack_uplink_mbps"] = ln.rack_uplink_mbps
    for key in ("latency_ms", "availability_pairs", "cost_per_mb_pairs", "measured_latency_ms"):
        table = getattr(ln, key)
        if table:
            links[key] = {a: dict(row) for a, row in table.items()}
    if ln.availability != 1.0:
        links["availability"] = ln.availability
    if ln.cost_per_mb:
        links["cost_per_mb"] = ln.cost_per_mb
    doc = {"name": c.name, "utilization_limit": c.utilization_limit, "nodes": nodes, "links": links}
    return doc | ({"engine": engine} if engine else {})


# ----------------------------------------------------------------- profile
#: top-level keys of a profile besides its data: what ``streamplace profile`` adds about how it measured
PROFILE_EXTRA_KEYS = ("measured",)


def load_profile(source: Source) -> Profile:
    doc, name = _document(source)
    # lazy: command-line start (pydantic)
    from streamplace.spec.schema import ProfileSpec

    unknown = [k for k in doc if k not in ("profiles", "selectivity", *PROFILE_EXTRA_KEYS)]
    if unknown or not ({"profiles", "selectivity"} & set(doc)):  # an empty profile applies to nothing, silently
        what = ("a topology spec, not a profile" if {"operators", "streams", "spouts", "bolts"} & set(doc) else
                "a cluster spec, not a profile" if "nodes" in doc else
                f"unknown top-level key {unknown[0]!r}" if unknown else "no profiles and no selectivity")
        raise SpecError([Problem(unknown[0] if unknown else "profiles", what,
                                 "a profile has profiles: [{operator, node_type, cost_ms, overhead}] and/or "
                                 "selectivity: {operator: α} (as `streamplace profile` writes it)")], name)

    spec: Any = validate_document(ProfileSpec, doc, name)
    try:
        return Profile(
            tuple(ProfileEntry(**model_kwargs(ProfileEntry, e)) for e in spec.profiles),
            spec.selectivity,
        )
    except ModelError as exc:
        raise _raise_with_source(exc, name) from None


# -------------------------------------------------------------------- plan
def load_plan(source: Source) -> Plan:
    """A plan file (what ``streamplace plan --json`` writes), every field checked for its type and range before
    a Plan is built from it: SpecError naming the file and the field."""
    # lazy: command-line start (pydantic)
    from streamplace.spec.schema import PlanSpec

    doc, name = _document(source)
    spec: Any = validate_document(PlanSpec, doc, name, "use the JSON that `streamplace plan --json` prints")
    try:
        return Plan.from_dict(spec.model_dump(exclude={"parallelism"}))
    except ModelError as exc:
        raise _raise_with_source(exc, name) from None
