"""Which operators of a plan run fused in one Spark stage (operator chaining, as Flink does by default).

Operator u and its consumer v are fused when nothing between them needs a
shuffle: the stream u → v is the only stream out of u and the only one into v,
it is shuffle-grouped (any replica may take any tuple, so a tuple may stay in
the task that made it), and u and v have the same replicas on the same nodes.
Then v's replica k takes what u's replica k emits, in the same task: no
shuffle, no stage barrier, no task launch — Storm's local-or-shuffle grouping
does the same within a worker. Key and ``all`` groupings, fan-in, fan-out and
operators on a cycle are never fused. The spark engine model (perf/engines/
spark.py) and the runtime (spark/pipeline.py) use these same chains; the
runtime may stand more operators alone (``standalone``: an operator with a
dead-letter output is filtered between its stage and the next).

Cost: O(operators + streams).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping

from streamplace.model.topology import Topology


def fused_chains(topology: Topology, replicas: Mapping[str, Mapping[Hashable, int]],
                 standalone: Collection[str] = ()) -> list[tuple[str, ...]]:
    """The operators grouped into chains that each run as one stage, in topological order (an operator fused
    with none is a chain of one); ``replicas`` is a plan's operator → node → count."""
    outs: dict[str, list[str]] = {op.id: [] for op in topology.operators}
    ins: dict[str, list[str]] = {op.id: [] for op in topology.operators}
    for s in topology.streams:
        outs[s.source].append(s.target)
        ins[s.target].append(s.source)
    in_cycle = {op for cycle in topology.cycles for op in cycle}
    grouping = {(s.source, s.target): s.grouping for s in topology.streams}

    def joined(u: str, v: str) -> bool:
        if len(outs[u]) != 1 or len(ins[v]) != 1 or outs[u][0] != v or u == v:
            return False
        if grouping[(u, v)] != "shuffle" or u in standalone or u in in_cycle or v in in_cycle:
            return False
        a = {n: c for n, c in replicas.get(u, {}).items() if c > 0}
        return bool(a) and a == {n: c for n, c in replicas.get(v, {}).items() if c > 0}

    chains: list[tuple[str, ...]] = []
    placed: set[str] = set()
    for op in topology.acyclic_order:
        if op in placed:
            continue
        chain = [op]
        while len(outs[chain[-1]]) == 1 and joined(chain[-1], outs[chain[-1]][0]):
            chain.append(outs[chain[-1]][0])
        placed.update(chain)
        chains.append(tuple(chain))
    return chains
