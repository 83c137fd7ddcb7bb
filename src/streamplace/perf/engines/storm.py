"""The ``storm`` engine: the pipelined model plus what a tuple costs to cross nodes, and flow control.

Storm runs every replica as a thread that works continuously, as the base model
assumes. Two things it adds, both of which the papers' results depend on:

* **Serialization.** A tuple sent to a replica on another node is serialized
  (Kryo) by the sender's worker and deserialized by the receiver's; a tuple to a
  replica in the same worker is passed by reference. Per remote tuple of b bytes
  the sending node spends ``ser_us + ser_us_per_kb · b / 1000`` µs of CPU and the
  receiving node ``deser_us + deser_us_per_kb · b / 1000``. For stream k with
  tuple rate λ_k, producer shares p(u) and consumer shares q(v), node u sends
  λ_k · p(u) · (1 − q(u)) and receives λ_k · q(u) · (1 − p(u)) tuples/s remotely,
  so its CPU points rise by (sent · ser + received · deser) / 10 per unit of
  scale (µs → ms: / 1000; ms per tuple × tuples/s / 10 = points). The load stays
  affine in the scale, so the sustainable scale keeps its closed form.
* **Flow control** (acking on, ``max_spout_pending`` P set): a spout replica has
  at most P tuples in flight, so by Little's law a source's rate is bounded by
  P · n_spout / L, L the complete latency in seconds: the mean end-to-end latency
  (M/M/1 queueing per replica plus link latencies) plus the ack's way back
  (the path's link latency again). L grows with the rate, so the bound is the
  largest scale s with s · λ · L(s) ≤ P · n, found by bisection.

Defaults: Storm's ``defaults.yaml`` has ``topology.max.spout.pending: null`` —
no flow control — and acking on (one acker per worker). Storm documents no CPU
cost of serialization; the defaults here (4 µs + 2 µs per KB each way) are our
assumption, stated in docs/models.md, and are parameters (``-p storm.ser_us=…``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.capacity import NodeLoads, ScaleLimit
from streamplace.perf.cells import Cells
from streamplace.perf.engines.base import EngineFigures, EngineInputs, EngineModel
from streamplace.perf.latency import path_latency
from streamplace.perf.network import StreamMetrics, stream_bytes, stream_shares


@dataclass(frozen=True)
class StormSettings:
    ser_us: float = 4.0  # µs of CPU per remote tuple on the sending node
    ser_us_per_kb: float = 2.0
    deser_us: float = 4.0  # µs of CPU per remote tuple on the receiving node
    deser_us_per_kb: float = 2.0
    max_spout_pending: int | None = None  # per spout replica; None: Storm's default (no flow control)


def remote_cpu_per_scale(topology: Topology, cells: Cells, streams: StreamMetrics, settings: StormSettings,
                         bytes_per_stream: np.ndarray) -> np.ndarray:
    """Extra CPU points per node per unit of scale spent serializing and deserializing remote tuples: over the
    streams' flat shares (network.stream_shares), O(E log E + nodes), never a (streams × nodes) matrix."""
    n = cells.n_nodes
    if not len(topology.streams):
        return np.zeros(n)
    shares = stream_shares(topology, cells)
    k = shares.stream
    tuples = streams.tuples[k]
    sent = tuples * shares.p * (1.0 - shares.q)
    received = tuples * shares.q * (1.0 - shares.p)
    kb = bytes_per_stream / 1000.0
    ser_ms = (settings.ser_us + settings.ser_us_per_kb * kb) / 1000.0
    deser_ms = (settings.deser_us + settings.deser_us_per_kb * kb) / 1000.0
    return (np.bincount(shares.node, weights=sent * ser_ms[k], minlength=n).astype(float)
            + np.bincount(shares.node, weights=received * deser_ms[k], minlength=n)) / 10.0


def flow_control_scale(topology: Topology, cells: Cells, streams: StreamMetrics, settings: StormSettings,
                       source_rate: float, cap: float) -> tuple[float, float]:
    """(largest scale Little's law allows, complete latency in ms there); (inf, nan) without flow control."""
    pending = settings.max_spout_pending
    if pending is None or source_rate <= 0:
        return math.inf, math.nan
    idx = topology.index
    spouts = float(sum(cells.parallelism[idx[s.id]] for s in topology.sources))
    allowed = pending * spouts

    def complete_ms(s: float) -> float:
        paths = path_latency(topology, cells, streams.worst_latency_ms, streams.mean_latency_ms, scale=s)
        return paths.mean_ms + paths.links_only_ms

    def in_flight(s: float) -> float:
        lat = complete_ms(s)
        return math.inf if not math.isfinite(lat) else s * source_rate * lat / 1000.0

    hi = cap if math.isfinite(cap) else 1e9
    if in_flight(hi) <= allowed:
        return math.inf, complete_ms(hi)
    lo = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if in_flight(mid) <= allowed:
            lo = mid
        else:
            hi = mid
    return lo, complete_ms(lo)


class StormEngine(EngineModel):
    name = "storm"
    description = "pipelined threads, serialization across nodes, flow control"
    settings_type = StormSettings
    remote_tuple_cpu = True

    def node_loads(self, settings: StormSettings, inputs: EngineInputs,
                   loads: NodeLoads) -> tuple[NodeLoads, dict[str, Any]]:
        """The base model's loads plus the CPU that serializing remote tuples takes."""
        extra = remote_cpu_per_scale(inputs.topology, inputs.cells, inputs.streams, settings,
                                     stream_bytes(inputs.topology))
        ids = inputs.cluster.ids
        return (NodeLoads(loads.cpu_rate + extra, loads.cpu_fixed, loads.memory),
                {"serialization_points": {ids[u]: float(extra[u]) for u in np.flatnonzero(extra > 0)}})

    def revise(self, settings: StormSettings, inputs: EngineInputs, figures: EngineFigures) -> EngineFigures:
        """Flow control: the scale Little's law allows where it is below the base model's limit."""
        topology, rates, limit = inputs.topology, inputs.rates, figures.limit
        source_rate = float(sum(rates.input[topology.index[o.id]] for o in topology.sources))
        fc, complete = flow_control_scale(topology, inputs.cells, inputs.streams, settings, source_rate, limit.scale)
        detail = figures.detail | {"max_spout_pending": settings.max_spout_pending, "flow_control_scale": fc,
                                   "complete_latency_ms": complete}
        if fc < limit.scale * (1 - 1e-3):
            limit = ScaleLimit(fc, "flow")
        return dataclasses.replace(figures, limit=limit, detail=detail)

    def bottleneck(self, limit: ScaleLimit, topology: Topology, cluster: Cluster) -> str | None:
        if limit.kind == "flow":
            return "flow control: max_spout_pending × spout replicas / complete latency (Little's law)"
        return None

    def summary_rows(self, detail: Mapping[str, Any]) -> list[tuple[str, Any]]:
        if detail.get("max_spout_pending") is None:
            return []
        return [("max spout pending", detail["max_spout_pending"]),
                ("complete latency (ms)", detail.get("complete_latency_ms"))]
