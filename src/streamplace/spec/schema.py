"""pydantic schemas of the spec files (docs/architecture.md, "Spec files"), derived from the model's dataclasses.

Unknown keys are rejected (``extra='forbid'``) so a typo such as ``cpu_ms``
is reported rather than silently ignored; numbers must be finite numbers (not
booleans, strings, NaN or infinity).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Kind, Operator, Stream, Topology
from streamplace.spec.derive import spec_model
from streamplace.spec.plain import MAX_NODES, MAX_REPLICAS, one_node


class Strict(BaseModel):
    # strict: a number is a number (``rate: true`` or ``replicas: "2"`` is an error, not 1.0 or 2); finite: NaN
    # and infinity pass every ``x < 0`` check and would come out as null metrics, so they are refused here
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True, allow_inf_nan=False)


class LogicSpec(Strict):
    model_config = ConfigDict(extra="allow")
    name: str


# Each spec class below is the model class's fields (spec/derive.py): only what the file writes otherwise, or
# bounds beyond the model's own checks, is stated here. spec/plain.py states the topology's and the cluster's
# again without pydantic (the check a plan's files pass before pydantic is imported): change both together
# (tests/test_spec_plain.py compares them field by field).
OperatorSpec = spec_model(
    Operator, "OperatorSpec", base=Strict,
    overrides={"kind": (Kind | None, None),  # inferred from the streams when left out
               "logic": (LogicSpec | None, None)},
    # a billion replicas ran for minutes before any message
    limits={"replicas": {"le": MAX_REPLICAS}, "max_replicas": {"le": MAX_REPLICAS}},
    validators={"_one_node": field_validator("pinned", mode="before")(one_node)})

StreamSpec = spec_model(
    Stream, "StreamSpec", base=Strict, exclude=("source", "target", "key"),
    overrides={"grouping": (str, "shuffle")},  # shuffle, all or key:<field> (model.topology.parse_grouping)
    extra={"from_": (str, Field(alias="from")), "to": (str, ...)})

TopologySpec = spec_model(Topology, "TopologySpec", base=Strict,
                          overrides={"operators": (list[OperatorSpec], ...),  # type: ignore[valid-type]
                                     "streams": (list[StreamSpec], [])})  # type: ignore[valid-type]

NodeSpec = spec_model(
    Node, "NodeSpec", base=Strict,
    doc="One node, or with ``count`` a group of identical nodes named ``ID-1`` … ``ID-N`` (zero-padded to the "
        "width of N, so they sort in order): a 10,000-node cluster fits in a few lines.",
    extra={"count": (int | None, Field(default=None, ge=1, le=MAX_NODES))})

LinksSpec = spec_model(Links, "LinksSpec", base=Strict)

ClusterSpec = spec_model(
    Cluster, "ClusterSpec", base=Strict, exclude=("engine_params",),
    overrides={"nodes": (list[NodeSpec], ...), "links": (LinksSpec, LinksSpec())},  # type: ignore[valid-type]
    # engine model parameters for this cluster, per registered engine: {spark: {trigger_s: 2, …}, storm:
    # {max_spout_pending: 1000, …}, ideal: {replica_cap: thread}}; the engine's own parser checks names and values
    extra={"engine": (dict[str, dict[str, float | int | str | None]], {})})

ProfileEntrySpec = spec_model(ProfileEntry, "ProfileEntrySpec", base=Strict)


class _Annotated(Strict):
    """A document that tools may annotate: keys beyond the schema are kept, not read."""

    model_config = ConfigDict(extra="allow")


ProfileSpec = spec_model(
    Profile, "ProfileSpec", base=_Annotated, exclude=("entries",),  # the profiler adds provenance fields
    extra={"profiles": (list[ProfileEntrySpec], [])})  # type: ignore[valid-type]


# ------------------------------------------------------------------ plan files (what `plan --json` writes)
#: A plan file (docs/architecture.md, "Plan JSON"): the fields streamplace reads are typed and ranged; other keys
#: are welcome (tools annotate plans) and not read, ``parallelism`` (derived from ``replicas``, written for
#: readers) included. The operators and nodes named are checked against an instance by
#: ``model.plan.validate_plan_against``.
PlanSpec = spec_model(
    Plan, "PlanSpec", base=_Annotated,
    overrides={"replicas": (dict[str, dict[str, Annotated[int, Field(ge=0, le=MAX_REPLICAS)]]], ...),
               "source_rates": (dict[str, Annotated[float, Field(gt=0)]], {}),
               "scheduler": (str, "manual"), "topology": (str, ""), "cluster": (str, ""),
               "predicted": (dict[str, Any], {}),  # the typed Predicted, as its JSON block
               "profile": (dict[str, Any] | None, None)},  # {path, sha256}; tools may annotate it
    limits={"planning_ms": {"ge": 0}, "gap": {"ge": 0}},
    extra={"parallelism": (dict[str, int] | None, None)})


# ------------------------------------------------------------------ Storm Flux files (spec/flux.py converts them)
class FluxOpen(Strict):
    """A Flux element: the fields streamplace reads are typed; Storm's others (constructorArgs, properties,
    components, config, …) are accepted and not read."""

    model_config = ConfigDict(extra="allow")


#: a Flux id: text, or a whole number read as text (YAML reads ``id: 1`` as one)
FluxId = Annotated[str, BeforeValidator(lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else v),
                   Field(min_length=1)]


class FluxMethodSpec(FluxOpen):
    name: str
    args: list[Any] = []


class FluxVertexSpec(FluxOpen):
    id: FluxId
    className: str | None = None
    parallelism: int = Field(default=1, ge=1, le=MAX_REPLICAS)
    cpuLoad: Annotated[float, Field(ge=0)] | None = None
    memoryLoad: Annotated[float, Field(ge=0)] | None = None
    onHeapMemoryLoad: Annotated[float, Field(ge=0)] | None = None
    offHeapMemoryLoad: Annotated[float, Field(ge=0)] | None = None
    rate: Annotated[float, Field(gt=0)] | None = None  # streamplace's own: a spout's offered tuples/s
    configMethods: list[FluxMethodSpec] | None = None


class FluxGroupingSpec(FluxOpen):
    type: str = "SHUFFLE"
    args: list[Any] | None = None


class FluxStreamSpec(FluxOpen):
    from_: FluxId = Field(alias="from")
    to: FluxId
    grouping: FluxGroupingSpec | None = None


class FluxIncludeSpec(FluxOpen):
    file: str
    resource: bool = False
    override: bool = False


class FluxSpec(FluxOpen):
    """A Storm Flux topology file, after its ``includes:`` are merged."""

    name: str | None = None
    spouts: list[FluxVertexSpec] | None = None
    bolts: list[FluxVertexSpec] | None = None
    streams: list[FluxStreamSpec] | None = None
    includes: list[FluxIncludeSpec] | None = None
    topologySource: dict[str, Any] | None = None
