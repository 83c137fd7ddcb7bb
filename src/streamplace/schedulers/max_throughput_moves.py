"""max-throughput's neighbourhood (throughput_search.py's population search and polish, and the spark search): the
candidates one step from each count matrix of a population, one node standing for each class of nodes alike in
the plan, and scored in bounded chunks.

Two nodes of one class of alike nodes (node_kinds.kind_classes: the same column of every per-node table of the
model) that hold the same replicas in a count matrix are interchangeable there: swapping them leaves its scale,
its fit and the nodes and replicas at its bottleneck as they are. A node's *state* in a count matrix is its class
and its column of counts; a step that takes a replica off a node, or puts one on, gives the same plan up to such
a swap from any node of the same state. So of each state only its first node by index is a source, and a target
too — or its second where the source is its first — (``node_states``): every empty node of a class is one state,
so a 100-node class holding nothing is one target, not 100. Where neighbours listed every node, the candidates
it drops are each a swap of nodes away from one it keeps, which comes before it in that listing (its nodes are
the state's first), at the same leximin key: the best candidate of a chain, the first of the best in listing
order, is the one the dense neighbourhood picked, and the search makes the same plans.

The candidates are listed as changes (a chain and the cells a step changes), built by joining each chain's
bottleneck cells with its states, never as dense (chains, ops, nodes, nodes) or (chains, ops, nodes, ops, nodes)
masks, and made count matrices and scored ``CHUNK_CELLS`` cells at a time (``best_per_chain``): the memory of a
round is O(candidates + CHUNK_CELLS + chains·ops·m) whatever the number of candidates.

Complexity per round (P chains, o operators, m nodes the model holds, c classes, s ≤ c + used nodes states per
chain, h bottleneck cells, q replicas off the bottleneck): states O(P·m·o·log(P·m)); additions O(P·o·s),
moves O(P·h·s), swaps O(P·h·q) (each the candidates' count; their join in blocks of at most CHUNK_CELLS pairs),
drops O(P·h), type moves O(P·o·g) (g machine types), vacate moves O(P·o·s·VACATE_FILL); each candidate scored in
O(o·m). Where the dense neighbourhood scored O(P·h·m) moves and O(P·h·o·m) swaps and held their masks, m here
enters only through the scoring of each kept candidate and the O(P·o·m) masks of a chain's own cells: at 300 nodes
of three kinds (t-r1, one thread per replica) the moves and swaps per chain fall from one per node to one per
state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.node_kinds import kind_classes

#: candidate cells (count matrices × ops × nodes) made and scored at once: bounds a round's memory
CHUNK_CELLS = 1 << 20
#: the most replicas a vacate move puts on the node it empties
VACATE_FILL = 3

#: a part of the neighbourhood: its number of candidates and how to make the count matrices of a slice of them
Part = tuple[int, Callable[[slice], tuple[np.ndarray, np.ndarray]]]


def node_states(model: ThroughputModel, pop: np.ndarray, classes: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per chain and node (P, nodes): the first node by index of its state (its class of alike nodes and its
    column of counts) and the state's second node (-1 where it has one node). O(P·m·o·log(P·m))."""
    n_chains, n_ops, n_nodes = pop.shape
    if classes is None:
        classes = kind_classes(model)
    rows = np.concatenate([np.repeat(np.arange(n_chains), n_nodes)[:, None], np.tile(classes, n_chains)[:, None],
                           pop.transpose(0, 2, 1).reshape(n_chains * n_nodes, n_ops)], axis=1)
    _, state = np.unique(rows, axis=0, return_inverse=True)
    state = state.reshape(-1)
    order = np.argsort(state, kind="stable")  # flat (chain, node) indices, state by state, in index order
    starts = np.flatnonzero(np.r_[True, state[order][1:] != state[order][:-1]])
    size = np.diff(np.r_[starts, len(order)])
    head = order[starts]  # each state's first (chain, node)
    tail = np.where(size >= 2, order[np.minimum(starts + 1, len(order) - 1)], -1)  # and its second, or -1
    first = np.empty(len(order), dtype=np.int64)
    second = np.empty(len(order), dtype=np.int64)
    first[order], second[order] = np.repeat(head, size), np.repeat(tail, size)
    shape = (n_chains, n_nodes)
    return first.reshape(shape) % n_nodes, np.where(second >= 0, second % n_nodes, -1).reshape(shape)


def _padded(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a (P, N) mask, its true columns in order, padded: (P, width) indices and their validity."""
    rows, cols = np.nonzero(mask)
    per = mask.sum(axis=1)
    width = max(int(per.max()) if len(per) else 0, 1)
    slot = np.arange(len(rows)) - np.repeat(np.r_[0, np.cumsum(per)[:-1]], per)
    index = np.zeros((mask.shape[0], width), dtype=np.int64)
    valid = np.zeros((mask.shape[0], width), dtype=bool)
    index[rows, slot], valid[rows, slot] = cols, True
    return index, valid


def _blocks(n_rows: int, width: int) -> Iterator[slice]:
    """Slices of ``n_rows`` rows, each at most CHUNK_CELLS rows × ``width`` (one row at least)."""
    step = max(1, CHUNK_CELLS // max(width, 1))
    for lo in range(0, n_rows, step):
        yield slice(lo, min(lo + step, n_rows))


def _single(pop: np.ndarray, owner: np.ndarray, changes: list[tuple[np.ndarray, np.ndarray, int]]) -> Part:
    """A part whose candidates each change a few cells of their chain's count matrix by ±1."""
    def make(s: slice) -> tuple[np.ndarray, np.ndarray]:
        batch = pop[owner[s]]
        r = np.arange(len(batch))
        for ops, nodes, delta in changes:
            batch[r, ops[s], nodes[s]] += delta
        return batch, owner[s]
    return len(owner), make


def neighbour_parts(model: ThroughputModel, pop: np.ndarray, k: np.ndarray, hot: np.ndarray,
                    groups: np.ndarray | None, node_s: np.ndarray, classes: np.ndarray | None = None) -> list[Part]:
    """The neighbourhood of every chain of ``pop`` (throughput_search.neighbours lists what each move is), one
    node standing for each state (module docstring), in the dense listing's order: additions, moves, drops,
    swaps, type moves, vacate moves. ``hot``: (P, ops, nodes) the replicas at each chain's bottleneck."""
    n = pop.sum(axis=2)  # (P, ops)
    n_nodes = pop.shape[2]
    first, second = node_states(model, pop, classes)
    nodes = np.arange(n_nodes)
    lead = first == nodes[None]  # (P, nodes): the first node of its state
    mem = (pop * model.memory[None, :, None]).sum(axis=1)  # (P, nodes)
    room = model.allowed[None] & (mem[:, None, :] + model.memory[None, :, None] <= model.node_memory + 1e-9) & \
        np.asarray(model.met < model.thread_points[None, :])[None] & \
        (pop.sum(axis=1) < model.slots[None])[:, None, :]  # (P, ops, nodes): may take one more replica of i
    ap, ai, av = np.nonzero(np.asarray(hot.any(axis=2))[:, :, None] & (n < k[None])[:, :, None] & room & lead[:, None])
    hp, hi, hu = np.nonzero(hot & lead[:, None])  # the bottleneck cells, one node per state
    parts = [_single(pop, ap, [(ai, av, 1)])]
    parts.append(_moves(pop, room, lead, second, hp, hi, hu))
    dp, di, du = np.nonzero(hot & (n > 1)[:, :, None] & lead[:, None])
    parts.append(_single(pop, dp, [(di, du, -1)]))
    parts.append(_swaps(model, pop, hot, mem, lead, first, second, hp, hi, hu))
    if groups is not None:
        parts += group_parts(model, pop, k, groups)
    if model.replica_cap == "machine":
        parts.append(vacate_part(model, pop, k, hot, node_s, lead))
    return parts


def _moves(pop: np.ndarray, room: np.ndarray, lead: np.ndarray, second: np.ndarray, hp: np.ndarray,
           hi: np.ndarray, hu: np.ndarray) -> Part:
    """A replica on the bottleneck moved to another node that may take it: to the first node of every other
    state, or to the second node of its own. O(h·s) per chain."""
    targets, valid = _padded(lead)  # (P, width): each chain's first nodes of its states
    cells, nodes = [], []
    for s in _blocks(len(hp), targets.shape[1]):
        p, i, u = hp[s, None], hi[s, None], hu[s, None]
        v = targets[p[:, 0]]
        ok = valid[p[:, 0]] & (v != u) & room[p, i, v]
        h, slot = np.nonzero(ok)
        cells.append(h + s.start)
        nodes.append(v[h, slot])
    own = second[hp, hu]  # the source's own state's second node
    h2 = np.flatnonzero((own >= 0) & room[hp, hi, np.maximum(own, 0)])
    cell = np.concatenate([*cells, h2]) if cells else h2
    to = np.concatenate([*nodes, own[h2]]) if nodes else own[h2]
    order = np.lexsort((to, cell))  # (chain, op, source, target): the dense listing's order
    cell, to = cell[order], to[order]
    return _single(pop, hp[cell], [(hi[cell], hu[cell], -1), (hi[cell], to, 1)])


def _swaps(model: ThroughputModel, pop: np.ndarray, hot: np.ndarray, mem: np.ndarray, lead: np.ndarray,
           first: np.ndarray, second: np.ndarray, hp: np.ndarray, hi: np.ndarray, hu: np.ndarray) -> Part:
    """A replica on the bottleneck (i, u) trades places with a replica off it (j, v) of another operator on a node
    of another state (its first node) or of u's own (its second), where both may go and memory holds. Only with
    a replica off the bottleneck: a swap between two bottleneck cells leaves a node at it unless the operators'
    costs differ a lot there (pruned for speed: about a third of the batch; no plan of max_throughput_gap.py's 36
    changed, under either replica cap). O(h·q) per chain."""
    second_here = second == np.arange(pop.shape[2])[None]  # (P, nodes): the second node of its state
    calm = (pop > 0) & ~hot & (lead | second_here)[:, None]  # (P, ops, nodes)
    flat, valid = _padded(calm.reshape(len(pop), -1))
    qj, qv = flat // pop.shape[2], flat % pop.shape[2]
    found: list[tuple[np.ndarray, np.ndarray]] = []
    for s in _blocks(len(hp), flat.shape[1]):
        p, i, u = hp[s], hi[s, None], hu[s, None]
        j, v = qj[p], qv[p]
        ok = valid[p] & (j != i) & (v != u) & (lead[p[:, None], v] | (first[p[:, None], v] == u)) & \
            model.allowed[i, v] & model.allowed[j, u]
        ok &= (mem[p[:, None], v] - model.memory[j] + model.memory[i] <= model.node_memory[v] + 1e-9) & \
            (mem[p[:, None], u] - model.memory[i] + model.memory[j] <= model.node_memory[u] + 1e-9)
        h, slot = np.nonzero(ok)
        found.append((h + s.start, flat[p[h], slot]))
    cell = np.concatenate([f[0] for f in found]) if found else np.zeros(0, dtype=np.int64)
    other = np.concatenate([f[1] for f in found]) if found else np.zeros(0, dtype=np.int64)
    order = np.lexsort((other, cell))  # (chain, i, u, j, v): the dense listing's order
    cell, other = cell[order], other[order]
    sj, sv = other // pop.shape[2], other % pop.shape[2]
    si, su = hi[cell], hu[cell]
    return _single(pop, hp[cell], [(si, su, -1), (si, sv, 1), (sj, sv, -1), (sj, su, 1)])


def group_parts(model: ThroughputModel, pop: np.ndarray, k: np.ndarray, groups: np.ndarray) -> list[Part]:
    """throughput_search.group_moves's candidates as parts: an operator one replica fewer, then one more, on every
    node of a group of identical machines holding it; where only the machine caps a replica, one replica on every
    node of a group holding none. O(P·ops·groups) candidates."""
    onehot = groups[:, None] == np.arange(int(groups.max()) + 1)[None, :]  # (nodes, G)
    held = pop > 0
    h = held.astype(np.int64) @ onehot  # (P, ops, G): nodes of the group holding the operator
    n = pop.sum(axis=2)
    mem = (pop * model.memory[None, :, None]).sum(axis=1)  # (P, nodes)
    over = ((mem[:, None, :] + model.memory[None, :, None] > model.node_memory + 1e-9)
            | (pop.sum(axis=1) >= model.slots[None])[:, None, :])  # (P, ops, nodes): one more would not fit
    blocked = (held & over).astype(np.int64) @ onehot > 0  # (P, ops, G): one more would break a holder's memory
    dp, di, dg = np.nonzero((h >= 2) & (n[:, :, None] - h >= 1))
    ap, ai, ag = np.nonzero((h >= 2) & (n[:, :, None] + h <= k[None, :, None]) & ~blocked)
    owner = np.concatenate([dp, ap])
    ops = np.concatenate([di, ai])
    sign = np.concatenate([-np.ones(len(dp), dtype=np.int64), np.ones(len(ap), dtype=np.int64)])
    which = np.concatenate([dg, ag])

    def change(s: slice) -> tuple[np.ndarray, np.ndarray]:
        batch = pop[owner[s]]
        r = np.arange(len(batch))
        touched = held[owner[s], ops[s]] & (groups[None, :] == which[s, None])  # (C, nodes)
        batch[r, ops[s]] += sign[s, None] * touched
        return batch, owner[s]

    parts: list[Part] = [(len(owner), change)]
    if model.replica_cap != "machine":
        return parts
    # only the machine caps a replica: also spread an operator onto every node of a group that does not hold it
    # yet (one replica each) — an even split wants identical machines, and one at a time each step makes the
    # operator's share on the new type too small to pay for its overhead
    size = onehot.sum(axis=0)  # (G,)
    free = (~over & model.allowed[None] & ~held).astype(np.int64) @ onehot  # (P, ops, G): nodes that could take one
    sp, si, sg = np.nonzero((h == 0) & (free == size[None, None, :]) & (size[None, None, :] >= 2)
                            & (n[:, :, None] + size[None, None, :] <= k[None, :, None]))

    def spread(s: slice) -> tuple[np.ndarray, np.ndarray]:
        batch = pop[sp[s]]
        batch[np.arange(len(batch)), si[s]] += groups[None, :] == sg[s, None]
        return batch, sp[s]

    return [*parts, (len(sp), spread)]


def vacate_part(model: ThroughputModel, pop: np.ndarray, k: np.ndarray, hot: np.ndarray, node_s: np.ndarray,
                lead: np.ndarray) -> Part:
    """throughput_search.vacate_moves's candidates, one node per state: a node off the bottleneck emptied for
    1..VACATE_FILL replicas of an operator at the bottleneck. O(P·ops·s·VACATE_FILL) candidates."""
    n = pop.sum(axis=2)  # (P, ops)
    calm = node_s > node_s.min(axis=1, keepdims=True) * (1 + 1e-9)  # (P, nodes): off the bottleneck
    only_here = (pop > 0) & (n[:, :, None] == pop)  # (P, ops, nodes): the operator's only node
    # emptying u leaves an operator without a replica unless it is the one that refills u
    lone = only_here.sum(axis=1)  # (P, nodes)
    fill = np.arange(1, VACATE_FILL + 1)[None, None, None, :]  # (P, ops j, nodes u, fills c) below
    valid = (lone[:, None, :] == 0) | ((lone[:, None, :] == 1) & only_here)  # (P, ops j, nodes u)
    mask = (np.asarray(hot.any(axis=2))[:, :, None, None] & model.allowed[None, :, :, None]
            & (calm & (pop.sum(axis=1) > 0) & lead)[:, None, :, None] & valid[:, :, :, None]
            & ((n[:, :, None] - pop)[..., None] + fill <= k[None, :, None, None])
            & (fill * model.memory[None, :, None, None] <= model.node_memory[None, None, :, None] + 1e-9)
            & (fill <= model.slots[None, None, :, None])
            & ((pop[..., None] != fill) | (pop.sum(axis=1)[:, None, :] != pop)[..., None]))  # not the node as it is
    vp, vj, vu, vc = np.nonzero(mask)

    def make(s: slice) -> tuple[np.ndarray, np.ndarray]:
        batch = pop[vp[s]]
        r = np.arange(len(batch))
        batch[r, :, vu[s]] = 0
        batch[r, vj[s], vu[s]] = vc[s] + 1
        return batch, vp[s]

    return len(vp), make


def chunks(parts: list[Part], cells: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The parts' candidates in order, as count matrices and their chains, at most CHUNK_CELLS cells at a time
    (``cells``: one count matrix's)."""
    for size, make in parts:
        for s in _blocks(size, cells):
            yield make(s)


def materialize(parts: list[Part], pop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate at once (batch, owner): for tests and small populations."""
    made = [make(slice(0, size)) for size, make in parts if size]
    if not made:
        return pop[:0].copy(), np.zeros(0, dtype=np.int64)
    return np.concatenate([b for b, _ in made]), np.concatenate([o for _, o in made])


def best_per_chain(parts: list[Part], pop: np.ndarray,
                   score: Callable[[np.ndarray], tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """Each chain's best candidate: the least (score's first, then second value), the first in listing order among
    equals — what a stable sort of every candidate at once picks — scored a chunk at a time. Returns the chains
    that have a candidate, their candidates and, per candidate, every value ``score`` gives (rows)."""
    n_chains = len(pop)
    key1, key2 = np.full(n_chains, np.inf), np.full(n_chains, np.inf)
    kept: list[np.ndarray | None] = [None] * n_chains
    rest: list[list[np.ndarray] | None] = [None] * n_chains
    for batch, owner in chunks(parts, pop.shape[1] * pop.shape[2]):
        values = score(batch)
        k1, k2 = values[0], values[1]
        order = np.lexsort((k2, k1, owner))
        head = order[np.r_[True, owner[order][1:] != owner[order][:-1]]] if len(order) else order
        chain = owner[head]
        better = (k1[head] < key1[chain]) | ((k1[head] == key1[chain]) & (k2[head] < key2[chain]))
        for row, c in zip(head[better].tolist(), chain[better].tolist(), strict=True):
            key1[c], key2[c] = k1[row], k2[row]
            kept[c] = batch[row].copy()  # not a view: the chunk is let go
            rest[c] = [np.array(v[row]) for v in values]
    chains = np.array([c for c in range(n_chains) if kept[c] is not None], dtype=np.int64)
    if not len(chains):
        return (chains, pop[:0].copy())
    rows = [rest[c] or [] for c in chains.tolist()]
    out = [np.stack([r[x] for r in rows]) for x in range(len(rows[0]))]
    return (chains, np.stack([kept[c] for c in chains.tolist() if kept[c] is not None]), *out)
