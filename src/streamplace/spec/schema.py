"""pydantic schemas of the spec files (docs/architecture.md, "Spec files").

Unknown keys are rejected (``extra='forbid'``) so a typo such as ``cpu_ms``
is reported rather than silently ignored; numbers must be finite numbers (not
booleans, strings, NaN or infinity).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from streamplace.model.topology import DEFAULT_BYTES_PER_TUPLE, DEFAULT_CPU_POINTS, DEFAULT_MEMORY_MB

#: bounds on what one spec may ask for (a node group of 10⁸ nodes or a billion replicas ran past 20 s with no
#: message); ten times the 10,000-node cluster benchmarks/scale.py plans in about 2 s, and 100,000 replicas of
#: one operator
MAX_NODES = 100_000
MAX_REPLICAS = 100_000


class Strict(BaseModel):
    # strict: a number is a number (``rate: true`` or ``replicas: "2"`` is an error, not 1.0 or 2); finite: NaN
    # and infinity pass every ``x < 0`` check and would come out as null metrics, so they are refused here
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True, allow_inf_nan=False)


class LogicSpec(Strict):
    model_config = ConfigDict(extra="allow")
    name: str


class OperatorSpec(Strict):
    id: str
    kind: Literal["source", "operator", "sink"] | None = None
    rate: float | None = None
    cost_ms: float = 0.0
    overhead: float = 0.0
    selectivity: float = 1.0
    cpu: float = DEFAULT_CPU_POINTS
    memory_mb: float = DEFAULT_MEMORY_MB
    bytes_per_tuple: float = DEFAULT_BYTES_PER_TUPLE
    replicas: int = Field(default=1, le=MAX_REPLICAS)  # a billion replicas ran for minutes before any message
    max_replicas: int | None = Field(default=None, le=MAX_REPLICAS)
    pinned: list[str] | None = None
    unit_cost: float = 1.0
    logic: LogicSpec | None = None

    @field_validator("pinned", mode="before")
    @classmethod
    def _one_node(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v


class StreamSpec(Strict):
    from_: str = Field(alias="from")
    to: str
    grouping: str = "shuffle"
    bytes_per_tuple: float | None = None


class TopologySpec(Strict):
    name: str
    operators: list[OperatorSpec]
    streams: list[StreamSpec] = []


class NodeSpec(Strict):
    """One node, or with ``count`` a group of identical nodes named ``ID-1`` … ``ID-N`` (zero-padded to the
    width of N, so they sort in order): a 10,000-node cluster fits in a few lines."""

    id: str
    count: int | None = Field(default=None, ge=1, le=MAX_NODES)
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
    coords: list[float] | None = None


class LinksSpec(Strict):
    same_node_ms: float = 0.0
    same_rack_ms: float = 0.2
    cross_rack_ms: float = 2.0
    cross_zone_ms: float | None = None
    #: Mbit/s of each rack's uplink to the other racks, shared by its cross-rack traffic (None: unlimited)
    rack_uplink_mbps: float | None = None
    latency_ms: dict[str, dict[str, float]] = {}
    availability: float = 1.0
    availability_pairs: dict[str, dict[str, float]] = {}
    cost_per_mb: float = 0.0
    cost_per_mb_pairs: dict[str, dict[str, float]] = {}
    #: one-way latencies measured for some pairs (ms): latency-aware schedulers with latencies=estimated start
    #: their network coordinates from these
    measured_latency_ms: dict[str, dict[str, float]] = {}


class ClusterSpec(Strict):
    name: str
    utilization_limit: float = 1.0
    nodes: list[NodeSpec]
    links: LinksSpec = LinksSpec()
    #: engine model parameters for this cluster: {spark: {trigger_s: 2, …}, storm: {max_spout_pending: 1000, …}}
    engine: dict[Literal["spark", "storm"], dict[str, float | int | None]] = {}


class ProfileEntrySpec(Strict):
    operator: str
    node_type: str
    cost_ms: float
    overhead: float = 0.0


class ProfileSpec(Strict):
    model_config = ConfigDict(extra="allow")  # the profiler may add provenance fields
    profiles: list[ProfileEntrySpec] = []
    selectivity: dict[str, float] = {}


# ------------------------------------------------------------------ plan files (what `plan --json` writes)
class PlanSpec(Strict):
    """A plan file (docs/architecture.md, "Plan JSON"): the fields streamplace reads are typed and ranged;
    other keys are welcome (tools annotate plans) and not read, ``parallelism`` (derived from ``replicas``,
    written for readers) included. The operators and nodes named are checked against an instance by
    ``model.plan.validate_plan_against``."""

    model_config = ConfigDict(extra="allow")

    replicas: dict[str, dict[str, Annotated[int, Field(ge=0, le=MAX_REPLICAS)]]]
    source_rates: dict[str, Annotated[float, Field(gt=0)]] = {}
    scheduler: str = "manual"
    topology: str = ""
    cluster: str = ""
    status: Literal["ok", "timeout", "infeasible"] = "ok"
    planning_ms: Annotated[float, Field(ge=0)] = 0.0
    predicted: dict[str, Any] = {}
    explanation: list[str] = []
    split: Literal["even", "capacity"] = "even"
    params: dict[str, Any] = {}
    gap: Annotated[float, Field(ge=0)] | None = None
    warnings: list[str] = []
    profile: dict[str, Any] | None = None
    parallelism: dict[str, int] | None = None


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
