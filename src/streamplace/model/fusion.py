"""Which operators of a plan run fused in one Spark stage (operator chaining, as Flink does by default).

Operator u and its consumer v are fused when nothing between them needs a
shuffle: the stream u → v is the only stream out of u and the only one into v,
it is shuffle-grouped (any replica may take any tuple, so a tuple may stay in
the task that made it), and u and v have the same replicas on the same nodes.
Then v's replica k takes what u's replica k emits, in the same task: no
shuffle, no stage barrier, no task launch — Storm's local-or-shuffle grouping
does the same within a worker. Key and ``all`` groupings, fan-in, fan-out and
operators on a cycle are never fused. The spark engine model (perf/engines/
spark.py) and the runtime (spark/query/pipeline.py) use these same chains; the
runtime may stand more operators alone (``standalone``: an operator with a
dead-letter output is filtered between its stage and the next).

Cost: O(operators + streams).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from typing import TypeVar

from streamplace.model.topology import Topology

#: a node as the caller names it (a node id, or "local" for a local run's one place)
NodeKey = TypeVar("NodeKey", bound=Hashable)


def fusable_pairs(topology: Topology, standalone: Collection[str] = ()) -> list[tuple[str, str]]:
    """The streams u → v whose operators fuse once u and v have the same replicas on the same nodes: the only
    stream out of u and into v, shuffle-grouped, off every cycle, u not standing alone; in topological order."""
    outs: dict[str, list[str]] = {op.id: [] for op in topology.operators}
    ins: dict[str, list[str]] = {op.id: [] for op in topology.operators}
    for s in topology.streams:
        outs[s.source].append(s.target)
        ins[s.target].append(s.source)
    in_cycle = {op for cycle in topology.cycles for op in cycle}
    grouping = {(s.source, s.target): s.grouping for s in topology.streams}
    pairs = []
    for u in topology.acyclic_order:
        if len(outs[u]) != 1 or u in standalone or u in in_cycle:
            continue
        v = outs[u][0]
        if v != u and len(ins[v]) == 1 and grouping[(u, v)] == "shuffle" and v not in in_cycle:
            pairs.append((u, v))
    return pairs


def fused_chains(topology: Topology, replicas: Mapping[str, Mapping[NodeKey, int]],
                 standalone: Collection[str] = ()) -> list[tuple[str, ...]]:
    """The operators grouped into chains that each run as one stage, in topological order (an operator fused
    with none is a chain of one); ``replicas`` is a plan's operator → node → count."""

    def placed(op: str) -> dict[NodeKey, int]:
        return {n: c for n, c in replicas.get(op, {}).items() if c > 0}

    following = {u: v for u, v in fusable_pairs(topology, standalone) if placed(u) and placed(u) == placed(v)}
    chains: list[tuple[str, ...]] = []
    done: set[str] = set()
    for op in topology.acyclic_order:
        if op in done:
            continue
        chain = [op]
        while chain[-1] in following:
            chain.append(following[chain[-1]])
        done.update(chain)
        chains.append(tuple(chain))
    return chains
