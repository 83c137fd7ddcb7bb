"""Import a Storm Flux YAML topology into a streamplace topology spec.

Flux describes spouts, bolts and streams; resources come from the vertex
fields ``cpuLoad``, ``onHeapMemoryLoad`` and ``offHeapMemoryLoad`` (Storm's
``setCPULoad``/``setMemoryLoad``) or from ``configMethods`` calling those
setters. Flux has no notion of an offered rate, so spouts get
``default_rate`` tuples/s (set it, or edit the result).

Grouping mapping: SHUFFLE, LOCAL_OR_SHUFFLE and NONE → ``shuffle``; FIELDS →
``key:<first field>``; ALL → ``all``. GLOBAL, DIRECT and CUSTOM route tuples
by rules the performance model cannot represent, so they are refused with
an error that says so.

Errors name the Flux file's own fields (``bolts[0].parallelism``), also those found when the converted
topology is validated. ``includes:`` of files (``resource: false``) are followed relative to the including
file and their spouts, bolts and streams appended (``override: true`` lets the included file's name win);
classpath resources and ``topologySource`` (a Java class that builds the topology) cannot be read and are
refused with a message that says so.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from streamplace.errors import Problem, SpecError
from streamplace.model.topology import DEFAULT_CPU_POINTS, DEFAULT_MEMORY_MB
from streamplace.spec.documents import read_document
from streamplace.spec.schema import FluxSpec
from streamplace.spec.validate import validate_document

DEFAULT_FLUX_RATE = 1000.0

_SHUFFLE_LIKE = {"SHUFFLE", "LOCAL_OR_SHUFFLE", "NONE"}
_REFUSED = {"GLOBAL", "DIRECT", "CUSTOM"}


def _number(value: Any) -> float:
    """A finite number ≥ 0 (not a boolean: ``cpuLoad: true`` is not one point); ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError(value)
    return float(value)


def _resources(vertex: dict[str, Any]) -> tuple[float, float]:
    cpu = vertex.get("cpuLoad")
    on_heap = vertex.get("onHeapMemoryLoad", vertex.get("memoryLoad"))
    off_heap = vertex.get("offHeapMemoryLoad")
    methods = vertex.get("configMethods") or []
    if not isinstance(methods, list) or not all(isinstance(c, dict) for c in methods):
        raise TypeError("configMethods")
    for call in methods:
        name = str(call.get("name", ""))
        args = call.get("args") or []
        if not isinstance(args, list):
            raise TypeError("configMethods")
        if name == "setCPULoad" and args:
            cpu = args[0]
        elif name == "setMemoryLoad" and args:
            on_heap = args[0]
            if len(args) > 1:
                off_heap = args[1]
    cpu_points = _number(cpu) if cpu is not None else DEFAULT_CPU_POINTS
    if on_heap is None and off_heap is None:
        memory = DEFAULT_MEMORY_MB
    else:
        memory = (_number(on_heap) if on_heap is not None else 0.0) + (
            _number(off_heap) if off_heap is not None else 0.0)
    return cpu_points, memory


def read_includes(doc: dict[str, Any], source: str, depth: int = 0) -> dict[str, Any]:
    """``doc`` with its ``includes:`` files merged in (relative to ``source``'s directory, recursively, at most
    8 deep): their spouts, bolts and streams appended; ``override: true`` also takes their name."""
    includes = doc.get("includes")
    if not includes:
        return doc
    if not isinstance(includes, list) or depth > 8:
        raise SpecError([Problem("includes", "expected a list of {resource, file, override}" if depth <= 8 else
                                 "includes nested more than 8 deep", "list the included files")], source)

    merged = {k: v for k, v in doc.items() if k != "includes"}
    for i, inc in enumerate(includes):
        if not isinstance(inc, dict) or not isinstance(inc.get("file"), str):
            raise SpecError([Problem(f"includes[{i}]", "expected {resource: false, file: path}",
                                     "name the included Flux file")], source)
        if inc.get("resource"):
            raise SpecError([Problem(f"includes[{i}].resource", f"{inc['file']!r} is a classpath resource inside a "
                                     "jar, which streamplace cannot read", "copy it beside this file and include "
                                     "it with resource: false")], source)
        path = Path(source).parent / inc["file"] if source not in ("<flux>", "<spec>", "-") else Path(inc["file"])
        sub = read_includes(read_document(path), str(path), depth + 1)
        for key in ("spouts", "bolts", "streams"):
            if sub.get(key):
                merged[key] = list(merged.get(key) or []) + list(sub[key])
        if inc.get("override") and sub.get("name"):
            merged["name"] = sub["name"]
    return merged


_CONVERTED_PATH = re.compile(r"^(operators|streams)\[(\d+)\]")


def flux_paths(problems: list[Problem], doc: dict[str, Any]) -> list[Problem]:
    """``problems`` of the converted topology renamed to the Flux file's fields: ``operators[k]`` is the k-th of
    the spouts then the bolts, ``streams[k]`` the k-th stream (the conversion keeps both orders)."""
    n_spouts = len(doc.get("spouts") or [])

    def rename(field: str) -> str:
        m = _CONVERTED_PATH.match(field)
        if not m:
            return field
        k = int(m.group(2))
        if m.group(1) == "streams":
            head = f"streams[{k}]"
        else:
            head = f"spouts[{k}]" if k < n_spouts else f"bolts[{k - n_spouts}]"
        rest = field[m.end():].replace(".replicas", ".parallelism")
        return head + rest

    return [Problem(rename(p.path), p.message, p.fix) for p in problems]


def flux_to_topology_doc(doc: dict[str, Any], source: str = "<flux>",
                         default_rate: float = DEFAULT_FLUX_RATE, custom_as_shuffle: bool = False) -> dict[str, Any]:
    """Translate a Flux document (its includes already merged: ``read_includes``) into a topology spec document
    (validated afterwards; ``flux_paths`` names that validation's problems by the Flux file's fields)."""
    if doc.get("topologySource") is not None:
        cls = doc["topologySource"].get("className") if isinstance(doc["topologySource"], dict) else None
        raise SpecError([Problem("topologySource", f"a Java class{f' ({cls})' if cls else ''} builds this "
                                 "topology; streamplace reads spouts, bolts and streams written in the file",
                                 "write the topology as Flux spouts/bolts/streams, or as a streamplace spec")], source)

    validate_document(FluxSpec, doc, source, "see `streamplace import-flux` in docs/cli.md and Storm's Flux reference")
    problems: list[Problem] = []
    operators: list[dict[str, Any]] = []
    for section, kind in (("spouts", "source"), ("bolts", None)):
        for i, vertex in enumerate(doc.get(section) or []):
            path = f"{section}[{i}]"
            try:
                cpu, memory = _resources(vertex)
            except (TypeError, ValueError) as exc:
                where = "configMethods" if str(exc) == "configMethods" else "cpuLoad"
                problems.append(Problem(f"{path}.{where}", "configMethods must be a list of {name, args}"
                                        if where == "configMethods" else
                                        "cpuLoad and the memory loads must be finite numbers ≥ 0",
                                        "write e.g. configMethods: [{name: setCPULoad, args: [50.0]}]"
                                        if where == "configMethods" else "write e.g. cpuLoad: 50.0"))
                continue
            op: dict[str, Any] = {"id": str(vertex["id"]), "cpu": cpu, "memory_mb": memory,
                                  "replicas": vertex.get("parallelism", 1)}
            if kind == "source":
                op["kind"] = "source"
                op["rate"] = float(vertex.get("rate", default_rate))
            class_name = vertex.get("className")
            if class_name:
                op["logic"] = {"name": "flux", "className": str(class_name)}
            operators.append(op)
    streams: list[dict[str, Any]] = []
    raw_streams = doc.get("streams") or []
    for k, s in enumerate(raw_streams):
        path = f"streams[{k}]"
        grouping = s.get("grouping") or {}
        gtype = str(grouping.get("type", "SHUFFLE")).upper()
        if gtype in _SHUFFLE_LIKE:
            g = "shuffle"
        elif gtype == "FIELDS":
            args = grouping.get("args") or []
            if not isinstance(args, list) or not args or not all(isinstance(a, str) and a for a in args):
                problems.append(Problem(f"{path}.grouping.args", "FIELDS grouping needs a list of field names, got "
                                        f"{args!r:.40}" if args else "FIELDS grouping without fields",
                                        "list the key field(s), e.g. args: [\"word\"]"))
                continue
            g = f"key:{args[0]}"
        elif gtype == "ALL":
            g = "all"
        elif gtype == "CUSTOM" and custom_as_shuffle:
            g = "shuffle"  # the caller asked for it (import-flux --custom-as-shuffle) and says so
        elif gtype in _REFUSED:
            problems.append(Problem(f"{path}.grouping.type", f"{gtype} grouping cannot be modelled "
                                    "(it routes tuples by rules outside the performance model)",
                                    "use SHUFFLE or FIELDS for planning" + (
                                        ", or import it with [[custom_as_shuffle]] to plan it as shuffle"
                                        if gtype == "CUSTOM" else "")))
            continue
        else:
            problems.append(Problem(f"{path}.grouping.type", f"unknown Flux grouping {gtype!r}",
                                    "use SHUFFLE, LOCAL_OR_SHUFFLE, NONE, FIELDS or ALL"))
            continue
        streams.append({"from": str(s["from"]), "to": str(s["to"]), "grouping": g})
    targets = {str(st.get("to")) for st in raw_streams if isinstance(st, dict)}  # refused streams count too
    for i, vertex in enumerate(doc.get("bolts") or []):  # else reported as "source 'bolt-4' has no rate"
        if isinstance(vertex, dict) and "id" in vertex and str(vertex["id"]) not in targets:
            problems.append(Problem(f"bolts[{i}]", f"bolt {vertex['id']!r} has no input stream",
                                    "add a stream into it, or remove it"))
    if problems:
        raise SpecError(problems, source)
    _emit_key_fields(operators, streams)
    name = doc.get("name") or "flux-topology"
    return {"name": str(name), "operators": operators, "streams": streams}


def _emit_key_fields(operators: list[dict[str, Any]], streams: list[dict[str, Any]]) -> None:
    """Tell each emulated Storm class which fields its FIELDS-grouped output streams are keyed by (``emits``),
    so that ``run`` can route by them: the emulation copies the tuple's key into each such field."""
    by_id = {op["id"]: op for op in operators}
    for stream in streams:
        field = stream["grouping"].partition(":")[2]
        upstream = by_id.get(stream["from"])
        if field and field != "key" and upstream is not None and "logic" in upstream:
            emits = upstream["logic"].setdefault("emits", [])
            if field not in emits:
                emits.append(field)
