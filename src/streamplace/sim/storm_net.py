"""The executors of one or more placed Storm topologies as flat arrays: what :mod:`storm_time` steps through.

Built from the ``storm`` engine's own evaluation of each plan (perf/evaluate.py), so the time model and the
steady-state engine read the same per-replica costs (e, MET), the same even (or capacity) split of a stream over
its consumer's replicas, the same tuple sizes and the same serialization costs. A *cell* is the c replicas of
one operator on one node: they see the same share of every stream, so they are stepped as one queue served by
c threads. Cells are numbered topology by topology, operator by operator, node by node, so each operator's
cells form one slice.

Per stream k from operator i to j, ``W_k[a, b]`` is the share of a tuple that producer cell a emits which lands
in consumer cell b's queue: b's split share for shuffle and key grouping (key grouping is an even split here, as
in the steady-state model), b's replica count for ``all`` grouping (every replica gets a copy). A cell emits
its share of its operator's output (the steady-state model's logical rate) per the tuples it serves, copies
included (``alpha``), so the flows are the steady-state model's at every scale. From W follow,
per tuple a cell serves: the bytes it puts on its node's NIC and its rack's uplink, the bytes it puts on the
consumers' NICs and uplinks, and the CPU it spends serializing (sender) and deserializing (receiver).

Cost: O(Σ_k cells_i · cells_j + cells · resources) time and memory, resources = 2 · nodes + 2 · racks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.cells import Cells
from streamplace.perf.engines import EngineSettings, StormSettings
from streamplace.perf.evaluate import Evaluation, evaluate
from streamplace.perf.network import stream_bytes


@dataclass(frozen=True)
class StreamLink:
    """One stream between two operators' cell slices."""

    topo: int
    src: slice  # producer cells
    tgt: slice  # consumer cells
    w: np.ndarray  # (producer cells × consumer cells) share of an emitted tuple landing in each consumer cell
    back: bool  # points backwards in the topological order: its tuples are served in the next step


@dataclass(frozen=True)
class OpInfo:
    topo: int
    name: str
    cells: slice
    alpha: float  # output tuples per input tuple
    source: bool
    sink: bool
    gain: float  # input rate per unit of its topology's total source rate (scale 1)
    offered: float  # a source's offered rate (tuples/s at scale 1), 0 otherwise
    copies: float  # tuples its replicas serve per tuple of its (logical) input: > 1 where input is ``all``-grouped
    out: tuple[int, ...]  # indices into StormNet.links


@dataclass(frozen=True)
class StormNet:
    topologies: tuple[Topology, ...]
    evaluations: tuple[Evaluation, ...]  # the storm engine's steady-state evaluation of each plan
    perms: tuple[np.ndarray, ...]  # per topology: its evaluation's cell order → ours (ours[k] = theirs[perm[k]])
    ops: tuple[OpInfo, ...]  # every topology's operators, each topology in its topological order
    links: tuple[StreamLink, ...]
    topo: np.ndarray  # per cell: its topology
    node: np.ndarray
    count: np.ndarray  # replicas (threads)
    e: np.ndarray  # ms of CPU per tuple served (the operator's own work)
    e_net: np.ndarray  # ms per tuple served spent serializing its remote output and deserializing remote input
    met: np.ndarray  # fixed CPU points per replica
    share: np.ndarray  # the cell's share of its operator's split input (and of its output)
    alpha: np.ndarray  # tuples a cell emits per tuple it serves: its operator's output × share / what it serves
    coef: np.ndarray  # (cells × resources) bytes per tuple served on each NIC direction and rack uplink direction
    capacity: np.ndarray  # per resource, bytes/s (inf where unlimited)
    resource_names: tuple[str, ...]
    n_spouts: np.ndarray  # per topology: spout replicas (max spout pending is per spout replica)
    source_total: np.ndarray  # per topology: its sources' offered rate at scale 1
    sink_gain: np.ndarray  # per topology: sink input per unit of source rate

    @property
    def n_cells(self) -> int:
        return len(self.node)


def _ordered(cells: Cells) -> np.ndarray:
    return np.lexsort((cells.node, cells.op))


def build_net(topologies: Sequence[Topology], plans: Sequence[Plan | Mapping[str, Mapping[str, int]]],
              cluster: Cluster, storm: StormSettings | None = None) -> StormNet:
    """The flat arrays of ``topologies`` placed by ``plans`` on ``cluster`` (module docstring)."""
    storm = storm or StormSettings()
    engine = EngineSettings("storm", storm=storm)
    evs = tuple(evaluate(t, cluster, p, engine=engine) for t, p in zip(topologies, plans, strict=True))
    n_nodes, racks = len(cluster), cluster.rack_index
    n_racks = len(cluster.racks)
    n_res = 2 * n_nodes + 2 * n_racks
    topo_a, node_a, count_a, e_a, met_a, perms, share_a, alpha_a = [], [], [], [], [], [], [], []
    ops: list[OpInfo] = []
    links: list[StreamLink] = []
    offset = 0
    n_spouts, src_total, sink_gain = [], [], []
    pending_links: list[tuple[int, int, int, np.ndarray, bool, float]] = []  # (topo, op i, op j, w, back, bytes)
    slices: list[dict[int, slice]] = []
    offsets: list[int] = []
    for t, (topology, ev) in enumerate(zip(topologies, evs, strict=True)):
        cells = ev.cells
        perm = _ordered(cells)
        perms.append(perm)
        offsets.append(offset)
        topo_a.append(np.full(len(perm), t))
        node_a.append(cells.node[perm])
        count_a.append(cells.count[perm])
        e_a.append(cells.e[perm])
        met_a.append(cells.met[perm])
        op_sorted = cells.op[perm]
        bounds = np.searchsorted(op_sorted, np.arange(cells.n_ops + 1))
        sl = {i: slice(offset + int(bounds[i]), offset + int(bounds[i + 1])) for i in range(cells.n_ops)}
        slices.append(sl)
        idx = topology.index
        total = float(sum(ev.rates.input[idx[o.id]] for o in topology.sources))
        src_total.append(total)
        n_spouts.append(float(sum(cells.parallelism[idx[o.id]] for o in topology.sources)))
        sink_gain.append(float(sum(ev.rates.input[idx[o.id]] for o in topology.sinks)) / total if total > 0 else 0.0)
        pos = {op: k for k, op in enumerate(topology.acyclic_order)}
        share = cells.split_share[perm]
        counts = cells.count[perm]
        # the steady-state model's flows: operator i emits output_i (logical), cell c its share of it, while
        # serving count_c · rate_c tuples (an all-grouped input reaches each replica whole)
        served = counts * cells.rate[perm]
        emitted = ev.rates.output[op_sorted] * share
        copied = np.zeros(cells.n_ops, dtype=bool)  # operators with an all-grouped input (elsewhere: α exactly)
        copied[[idx[s.target] for s in topology.streams if s.grouping == "all"]] = True
        alpha_cells = np.divide(emitted, served, out=ev.rates.selectivity[op_sorted].astype(float),
                                where=(served > 0) & copied[op_sorted])
        share_a.append(share)
        alpha_a.append(alpha_cells)
        per_op_served = np.bincount(op_sorted, weights=served, minlength=cells.n_ops)
        nbytes = stream_bytes(topology)
        for k, s in enumerate(topology.streams):
            i, j = idx[s.source], idx[s.target]
            tgt = sl[j]
            col = (counts if s.grouping == "all" else share)[tgt.start - offset:tgt.stop - offset]
            n_src = sl[i].stop - sl[i].start
            pending_links.append((t, i, j, np.tile(col, (n_src, 1)), pos[s.target] <= pos[s.source],
                                  float(nbytes[k])))
        for op_id in topology.acyclic_order:
            i = idx[op_id]
            o = topology.operators[i]
            lam = float(ev.rates.input[i])
            ops.append(OpInfo(t, op_id, sl[i], float(ev.rates.selectivity[i]), o.is_source, o.is_sink,
                              lam / total if total > 0 else 0.0, lam if o.is_source else 0.0,
                              float(per_op_served[i]) / lam if lam > 0 and copied[i] else 1.0, ()))
        offset += len(perm)
    node = np.concatenate(node_a).astype(np.intp)
    n_cells = len(node)
    coef = np.zeros((n_cells, n_res))
    e_net = np.zeros(n_cells)
    deser_in = np.zeros(n_cells)  # ms of deserialization per unit of input (weighted by arrivals at scale 1)
    arrivals = np.zeros(n_cells)
    op_index = {(op.topo, op.cells.start, op.cells.stop): k for k, op in enumerate(ops)}
    out_links: dict[int, list[int]] = {}
    ev_rates = [ev.rates for ev in evs]
    alpha_all = np.concatenate(alpha_a)
    for (t, i, j, w, back, b) in pending_links:
        src, tgt = slices[t][i], slices[t][j]
        a_nodes, b_nodes = node[src], node[tgt]
        remote = a_nodes[:, None] != b_nodes[None, :]
        cross = racks[a_nodes][:, None] != racks[b_nodes][None, :]
        alpha = alpha_all[src][:, None]
        kb = b / 1000.0
        ser_ms = (storm.ser_us + storm.ser_us_per_kb * kb) / 1000.0
        deser_ms = (storm.deser_us + storm.deser_us_per_kb * kb) / 1000.0
        # per tuple a producer cell serves: alpha tuples out, each w[a, b] to consumer b
        sent = alpha * w * remote  # remote tuples per tuple served, per consumer cell
        e_net[src] += ser_ms * sent.sum(axis=1)
        rows = np.arange(src.start, src.stop)
        np.add.at(coef, (rows, a_nodes), b * sent.sum(axis=1))
        for col in range(len(b_nodes)):
            np.add.at(coef, (rows, n_nodes + b_nodes[col]), b * sent[:, col])
            x = alpha[:, 0] * w[:, col] * cross[:, col] * b
            np.add.at(coef, (rows, 2 * n_nodes + racks[a_nodes]), x)
            np.add.at(coef, (rows, 2 * n_nodes + n_racks + racks[b_nodes[col]]), x)
        # the consumer's deserialization per input tuple, from the producers' output at scale 1
        base = offsets[t]
        produced = float(ev_rates[t].output[i]) * evs[t].cells.split_share[perms[t]][src.start - base:src.stop - base]
        into = produced[:, None] * w
        deser_in[tgt] += deser_ms * (into * remote).sum(axis=0)
        arrivals[tgt] += into.sum(axis=0)
        out_links.setdefault(op_index[(t, src.start, src.stop)], []).append(len(links))
        links.append(StreamLink(t, src, tgt, w, back))
    e_net += np.divide(deser_in, arrivals, out=np.zeros(n_cells), where=arrivals > 0)
    ops = [dataclasses.replace(o, out=tuple(out_links.get(k, ()))) for k, o in enumerate(ops)]
    uplink = cluster.rack_uplink_bytes
    capacity = np.concatenate([cluster.bandwidth_bytes, cluster.bandwidth_bytes, np.full(2 * n_racks, uplink)])
    names = ([f"NIC of {n} (out)" for n in cluster.ids] + [f"NIC of {n} (in)" for n in cluster.ids]
             + [f"uplink of {r} (out)" for r in cluster.racks] + [f"uplink of {r} (in)" for r in cluster.racks])
    return StormNet(tuple(topologies), evs, tuple(perms), tuple(ops), tuple(links), np.concatenate(topo_a),
                    node, np.concatenate(count_a), np.concatenate(e_a), e_net, np.concatenate(met_a),
                    np.concatenate(share_a), alpha_all, coef,
                    capacity, tuple(names), np.array(n_spouts), np.array(src_total), np.array(sink_gain))

