"""Load and save spec files. Every failure names the file, the field path and the fix."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import yaml

from streamplace.errors import ModelError, Problem, SpecError
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Operator, Stream, Topology, infer_kinds, parse_grouping

if TYPE_CHECKING:  # pydantic and the schema load on the first spec file read (0.06 s that built-in names skip)
    from pydantic import BaseModel

    from streamplace.spec.schema import ClusterSpec, ProfileSpec, TopologySpec

Source = str | Path | Mapping[str, Any]


_BASE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's C parser where PyYAML has it


class SpecLoader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """YAML's safe loader (libyaml's C parser when present: a listing of 10,000 nodes one by one reads in about
    3 s instead of about 30 s on 2 cores) that refuses a key given twice in one mapping — YAML would silently keep
    the last."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                line = key_node.start_mark.line + 1
                if key_node.value in seen:
                    raise DuplicateKey(key_node.value, line, seen[key_node.value])
                seen[key_node.value] = line
        return super().construct_mapping(node, deep=deep)


class DuplicateKey(yaml.YAMLError):
    def __init__(self, key: str, line: int, first: int):
        super().__init__(f"duplicate key {key!r} at line {line} (first at line {first})")
        self.key, self.line, self.first = key, line, first


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (json keeps the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key, 0, 0)
        out[key] = value
    return out


#: the path that means standard input (``streamplace plan - CLUSTER < topology.yaml``)
STDIN = "-"


def read_document(path: str | Path) -> dict[str, Any]:
    """Parse a YAML or JSON file (``-``: standard input, JSON when it starts with ``{``) into a mapping, with a
    clear error for each way it can fail."""
    if str(path) == STDIN:
        text = sys.stdin.read()
        return _parse(text, Path("<stdin>"), text.lstrip().startswith("{"))
    p = Path(path)
    if not p.exists():
        raise SpecError([Problem("", "file not found", "check the path, or use a built-in name "
                                 "(`streamplace bench list`)")], str(p))
    if p.is_dir():
        raise SpecError([Problem("", "is a directory, not a spec file", "give the path of a YAML or JSON file")],
                        str(p))
    size = p.stat().st_size
    limit = MAX_JSON_BYTES if p.suffix.lower() == ".json" else MAX_YAML_BYTES
    if size > limit:
        kind = "JSON" if limit == MAX_JSON_BYTES else "YAML"
        raise SpecError([Problem("", f"the file is {size / 1e6:,.1f} MB; {kind} specs are read up to "
                                     f"{limit / 1e6:,.0f} MB",
                                 "write a large cluster as node groups (count: N) or as JSON (read up to "
                                 f"{MAX_JSON_BYTES / 1e6:,.0f} MB, 20× faster than YAML)")], str(p))
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError([Problem(f"byte {exc.start}", "not UTF-8 text (a binary file?)",
                                 "give a YAML or JSON spec saved as UTF-8")], str(p)) from None
    except OSError as exc:
        raise SpecError([Problem("", f"cannot be read: {exc.strerror}", "check the path and its permissions")],
                        str(p)) from None
    return _parse(text, p, p.suffix.lower() == ".json")


#: the largest spec files read: YAML takes ~3 s for 10,000 nodes listed one by one on 2 cores, JSON ~0.1 s
MAX_YAML_BYTES = 16_000_000
MAX_JSON_BYTES = 256_000_000
#: the most values a parsed document may expand to, counting a YAML alias each time it is used: a "billion
#: laughs" document (nested aliases) is a few hundred bytes that expand to 10⁹ values
MAX_VALUES = 5_000_000


def _expanded_size_ok(doc: Any) -> bool:
    """Whether ``doc`` expands to at most MAX_VALUES values, shared (aliased) values counted at every use; the
    walk stops as soon as it passes the bound, so it costs at most MAX_VALUES steps."""
    count, stack = 0, [doc]
    while stack:
        value = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return False
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return True


def _parse(text: str, p: Path, as_json: bool) -> dict[str, Any]:
    if len(text) > (MAX_JSON_BYTES if as_json else MAX_YAML_BYTES):
        raise SpecError([Problem("", f"the document is {len(text) / 1e6:,.1f} MB, more than is read",
                                 "write a large cluster as node groups (count: N) or as JSON")], str(p))
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys) if as_json else yaml.load(text, Loader=SpecLoader)
    except RecursionError:
        raise SpecError([Problem("", "nested too deeply to read", "a spec needs a few levels of nesting only")],
                        str(p)) from None
    except DuplicateKey as exc:
        where, first = (f"line {exc.line}", f" (first at line {exc.first})") if exc.line else ("", "")
        raise SpecError([Problem(where, f"key {exc.key!r} given twice in one mapping{first}", "keep one of them")],
                        str(p)) from None
    except json.JSONDecodeError as exc:
        raise SpecError([Problem(f"line {exc.lineno}", f"invalid JSON: {exc.msg}", "fix the JSON syntax")],
                        str(p)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecError([Problem(where, f"invalid YAML: {problem}", "fix the YAML syntax")], str(p)) from None
    if not isinstance(doc, dict):
        raise SpecError([Problem("", "expected a mapping at the top level", "start the file with `name: ...`")],
                        str(p))
    if not _expanded_size_ok(doc):
        raise SpecError([Problem("", f"the document expands to more than {MAX_VALUES:,} values (YAML aliases "
                                     "used over and over?)", "write the values out, or use fewer aliases")], str(p))
    return doc


def _document(source: Source) -> tuple[dict[str, Any], str]:
    if isinstance(source, Mapping):
        return dict(source), "<spec>"
    return read_document(source), str(source)


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


_FIXES = {
    "missing": "add this field",
    "extra_forbidden": "remove it or check its spelling",
    "float_parsing": "give a number",
    "float_type": "give a number",
    "int_parsing": "give a whole number",
    "int_type": "give a whole number",
    "int_from_float": "give a whole number",
    "string_type": "give a text value",
    "list_type": "give a list",
    "dict_type": "give a mapping",
    "literal_error": "use one of the listed values",
    "model_type": "give a mapping with the documented fields",
    "less_than_equal": "give a value within the bound (docs/specs.md: the specs' bounds)",
    "greater_than_equal": "give a value within the bound",
    "greater_than": "give a value above the bound",
    "finite_number": "give a finite number (not NaN or infinity)",
    "bool_type": "give true or false",
    "too_short": "give a non-empty value",
    "string_too_short": "give a non-empty value",
}


def _model_at(schema: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that validates the value at ``loc`` inside ``schema`` (through lists, mappings and
    optionals), or None where no model does: to list the fields it knows."""
    import typing

    from pydantic import BaseModel

    def inner(t: Any) -> type[BaseModel] | None:  # the model in X, list[X], dict[str, X] or X | None
        if isinstance(t, type) and issubclass(t, BaseModel):
            return t
        return next((m for a in reversed(typing.get_args(t)) if (m := inner(a)) is not None), None)

    node: type[BaseModel] | None = schema
    for part in loc:
        if node is None:
            return None
        by_name = {(f.alias or name): f for name, f in node.model_fields.items()}
        if isinstance(part, str) and part in by_name:
            node = inner(by_name[part].annotation)
        # else a list index or a mapping key: the same model validates the item
    return node


def validate_document(schema: type[BaseModel], doc: Any, source: str,
                      fallback_fix: str = "see the spec reference in docs/specs.md") -> Any:
    """``doc`` validated by ``schema`` (pydantic), or a SpecError naming ``source`` and every wrong field by its
    path in the document (``operators[2].cost_ms``) with a fix — pydantic's own report is never shown. The one
    entry point of every file format: specs, profiles, plans, calibration and Flux files."""
    from pydantic import ValidationError

    if not isinstance(doc, Mapping):
        raise SpecError([Problem("(document)", f"expected a mapping at the top, got {type(doc).__name__}",
                                 fallback_fix)], source)
    try:
        return schema.model_validate(dict(doc))
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            fix = _FIXES.get(err["type"], fallback_fix)
            if err["type"] == "extra_forbidden":
                parent = _model_at(schema, err["loc"][:-1])
                known = ", ".join(f.alias or name for name, f in parent.model_fields.items()) if parent else ""
                if known:
                    fix = f"remove it or check its spelling (known fields: {known})"
            message = err["msg"]
            if err["type"] == "model_type":  # pydantic names its own class here: say what the file needs
                message = f"expected a mapping, got {type(err.get('input')).__name__}"
            problems.append(Problem(_loc(err["loc"]), message, fix))
        raise SpecError(problems, source) from None


def _raise_with_source(exc: ModelError, source: str) -> SpecError:
    return SpecError(exc.problems, source)


# ---------------------------------------------------------------- topology
def load_topology(source: Source) -> Topology:
    """Load a topology spec, or import a Storm Flux YAML file (recognized by ``spouts``/``bolts``)."""
    doc, name = _document(source)
    from streamplace.spec.schema import TopologySpec

    if is_flux(doc):
        return load_flux(doc, name)
    spec: TopologySpec = validate_document(TopologySpec, doc, name)
    return topology_from_spec(spec, name)


def is_flux(doc: Mapping[str, Any]) -> bool:
    return bool({"spouts", "bolts", "includes", "topologySource"} & set(doc))


def load_flux(doc: dict[str, Any], name: str, default_rate: float | None = None,
              custom_as_shuffle: bool = False) -> Topology:
    """A Storm Flux document as a topology: includes merged, converted, validated, every problem named by the
    Flux file's own fields. ``custom_as_shuffle`` plans CUSTOM groupings as shuffle (else refused)."""
    from streamplace.spec.flux import DEFAULT_FLUX_RATE, flux_paths, flux_to_topology_doc, read_includes
    from streamplace.spec.schema import TopologySpec

    flux = read_includes(doc, name)
    converted = flux_to_topology_doc(flux, name, DEFAULT_FLUX_RATE if default_rate is None else default_rate,
                                     custom_as_shuffle=custom_as_shuffle)
    try:  # the converted topology's problems, named by the Flux file's own fields
        return topology_from_spec(validate_document(TopologySpec, converted, name), name)
    except ModelError as exc:
        raise SpecError(flux_paths(exc.problems, flux), name) from None


def topology_from_spec(spec: TopologySpec, source: str = "<spec>") -> Topology:
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
        ops.append(
            Operator(
                id=o.id, kind=kind, rate=o.rate, cost_ms=o.cost_ms, overhead=o.overhead,
                selectivity=o.selectivity, cpu=o.cpu, memory_mb=o.memory_mb,
                bytes_per_tuple=o.bytes_per_tuple, replicas=o.replicas, max_replicas=o.max_replicas,
                pinned=tuple(o.pinned) if o.pinned is not None else None, unit_cost=o.unit_cost,
                logic=logic,
            )
        )
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
    from streamplace.spec.schema import ClusterSpec

    spec: ClusterSpec = validate_document(ClusterSpec, doc, name)
    from streamplace.spec.schema import MAX_NODES

    total = sum(n.count or 1 for n in spec.nodes)
    if total > MAX_NODES:
        raise SpecError([Problem("nodes", f"the node groups add up to {total:,} nodes; a cluster has at most "
                                          f"{MAX_NODES:,}", "plan a part of the cluster, or fewer, larger nodes")],
                        name)
    nodes = tuple(
        Node(id=node_id, cpu=n.cpu, memory_mb=n.memory_mb, type=n.type, rack=n.rack, zone=n.zone,
             speedup=n.speedup, availability=n.availability, cost_per_hour=n.cost_per_hour, slots=n.slots,
             bandwidth_mbps=n.bandwidth_mbps, coords=tuple(n.coords) if n.coords else None)
        for n in spec.nodes for node_id in group_ids(n.id, n.count)
    )
    ln = spec.links
    links = Links(
        same_node_ms=ln.same_node_ms, same_rack_ms=ln.same_rack_ms, cross_rack_ms=ln.cross_rack_ms,
        cross_zone_ms=ln.cross_zone_ms, rack_uplink_mbps=ln.rack_uplink_mbps, latency_ms=ln.latency_ms,
        availability=ln.availability,
        availability_pairs=ln.availability_pairs, cost_per_mb=ln.cost_per_mb,
        cost_per_mb_pairs=ln.cost_per_mb_pairs, measured_latency_ms=ln.measured_latency_ms,
    )
    engine = {f"{eng}.{key}": value for eng, block in spec.engine.items() for key, value in block.items()}
    if engine:  # checked here, so a bad key names this file
        from streamplace.perf.engines import EngineSettings

        try:
            EngineSettings("ideal").with_params(engine, "engine")
        except ModelError as exc:
            raise _raise_with_source(exc, name) from None
    try:
        return Cluster(spec.name, nodes, links, spec.utilization_limit, engine)
    except ModelError as exc:
        if any(n.count is not None for n in spec.nodes):
            exc = ModelError(_spec_paths(exc.problems, spec))
        raise _raise_with_source(exc, name) from None


def _spec_paths(problems: list[Problem], spec: ClusterSpec) -> list[Problem]:
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
    from streamplace.spec.schema import ProfileSpec

    unknown = [k for k in doc if k not in ("profiles", "selectivity", *PROFILE_EXTRA_KEYS)]
    if unknown or not ({"profiles", "selectivity"} & set(doc)):  # an empty profile applies to nothing, silently
        what = ("a topology spec, not a profile" if {"operators", "streams", "spouts", "bolts"} & set(doc) else
                "a cluster spec, not a profile" if "nodes" in doc else
                f"unknown top-level key {unknown[0]!r}" if unknown else "no profiles and no selectivity")
        raise SpecError([Problem(unknown[0] if unknown else "profiles", what,
                                 "a profile has profiles: [{operator, node_type, cost_ms, overhead}] and/or "
                                 "selectivity: {operator: α} (as `streamplace profile` writes it)")], name)

    spec: ProfileSpec = validate_document(ProfileSpec, doc, name)
    try:
        return Profile(
            tuple(ProfileEntry(e.operator, e.node_type, e.cost_ms, e.overhead) for e in spec.profiles),
            spec.selectivity,
        )
    except ModelError as exc:
        raise _raise_with_source(exc, name) from None


# -------------------------------------------------------------------- plan
def load_plan(source: Source) -> Plan:
    """A plan file (what ``streamplace plan --json`` writes), every field checked for its type and range before
    a Plan is built from it: SpecError naming the file and the field."""
    from streamplace.spec.schema import PlanSpec

    doc, name = _document(source)
    spec: PlanSpec = validate_document(PlanSpec, doc, name, "use the JSON that `streamplace plan --json` prints")
    try:
        return Plan.from_dict(spec.model_dump(exclude={"parallelism"}))
    except ModelError as exc:
        raise _raise_with_source(exc, name) from None
