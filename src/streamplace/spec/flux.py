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
"""

from __future__ import annotations

from typing import Any

from streamplace.errors import Problem, SpecError
from streamplace.model.topology import DEFAULT_CPU_POINTS, DEFAULT_MEMORY_MB

DEFAULT_FLUX_RATE = 1000.0

_SHUFFLE_LIKE = {"SHUFFLE", "LOCAL_OR_SHUFFLE", "NONE"}
_REFUSED = {"GLOBAL", "DIRECT", "CUSTOM"}


def _resources(vertex: dict[str, Any]) -> tuple[float, float]:
    cpu = vertex.get("cpuLoad")
    on_heap = vertex.get("onHeapMemoryLoad", vertex.get("memoryLoad"))
    off_heap = vertex.get("offHeapMemoryLoad")
    for call in vertex.get("configMethods") or []:
        name = str(call.get("name", ""))
        args = call.get("args") or []
        if name == "setCPULoad" and args:
            cpu = args[0]
        elif name == "setMemoryLoad" and args:
            on_heap = args[0]
            if len(args) > 1:
                off_heap = args[1]
    cpu_points = float(cpu) if cpu is not None else DEFAULT_CPU_POINTS
    if on_heap is None and off_heap is None:
        memory = DEFAULT_MEMORY_MB
    else:
        memory = float(on_heap or 0.0) + float(off_heap or 0.0)
    return cpu_points, memory


def flux_to_topology_doc(doc: dict[str, Any], source: str = "<flux>",
                         default_rate: float = DEFAULT_FLUX_RATE) -> dict[str, Any]:
    """Translate a Flux document into a topology spec document (validated afterwards)."""
    problems: list[Problem] = []
    operators: list[dict[str, Any]] = []
    for section, kind in (("spouts", "source"), ("bolts", None)):
        for i, vertex in enumerate(doc.get(section) or []):
            path = f"{section}[{i}]"
            if not isinstance(vertex, dict) or "id" not in vertex:
                problems.append(Problem(path, "a Flux vertex needs an id", "add `id: <name>`"))
                continue
            try:
                cpu, memory = _resources(vertex)
            except (TypeError, ValueError):
                problems.append(Problem(path, "cpuLoad / memory loads must be numbers",
                                        "write e.g. cpuLoad: 50.0"))
                continue
            parallelism = vertex.get("parallelism", 1)
            if not isinstance(parallelism, int) or parallelism < 1:
                problems.append(Problem(f"{path}.parallelism", f"must be a whole number >= 1, got {parallelism!r}",
                                        "give the executor count, e.g. parallelism: 4"))
                parallelism = 1
            op: dict[str, Any] = {"id": str(vertex["id"]), "cpu": cpu, "memory_mb": memory,
                                  "replicas": parallelism}
            if kind == "source":
                op["kind"] = "source"
                op["rate"] = float(vertex.get("rate", default_rate))
            class_name = vertex.get("className")
            if class_name:
                op["logic"] = {"name": "flux", "className": str(class_name)}
            operators.append(op)
    streams: list[dict[str, Any]] = []
    for k, s in enumerate(doc.get("streams") or []):
        path = f"streams[{k}]"
        grouping = (s.get("grouping") or {}) if isinstance(s, dict) else {}
        gtype = str(grouping.get("type", "SHUFFLE")).upper()
        if gtype in _SHUFFLE_LIKE:
            g = "shuffle"
        elif gtype == "FIELDS":
            args = grouping.get("args") or []
            if not args:
                problems.append(Problem(f"{path}.grouping.args", "FIELDS grouping without fields",
                                        "list the key field(s), e.g. args: [\"word\"]"))
                continue
            g = f"key:{args[0]}"
        elif gtype == "ALL":
            g = "all"
        elif gtype in _REFUSED:
            problems.append(Problem(f"{path}.grouping.type", f"{gtype} grouping cannot be modelled "
                                    "(it routes tuples by rules outside the performance model)",
                                    "use SHUFFLE or FIELDS for planning"))
            continue
        else:
            problems.append(Problem(f"{path}.grouping.type", f"unknown Flux grouping {gtype!r}",
                                    "use SHUFFLE, LOCAL_OR_SHUFFLE, NONE, FIELDS or ALL"))
            continue
        streams.append({"from": s.get("from"), "to": s.get("to"), "grouping": g})
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
