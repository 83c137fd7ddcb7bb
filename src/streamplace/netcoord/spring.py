"""Spring relaxation of Ecker et al. 2025, Algorithms 1 and 2.

Each node moves in a 3-D cost space, treating its peers' positions as
fixed: every peer pulls (or pushes) it with force k·log(‖d‖/ℓ) along the
unit vector d towards the peer, ℓ being the measured latency and ‖d‖ the
current distance; the forces are summed and applied until the total
movement falls below ε_min or 100 iterations pass (Algorithm 1). The
logarithm keeps far-away peers from dominating. Peers: after each round a
node keeps its i lowest-latency peers and draws j new random ones (a bias
for local accuracy, which matters most to placement). Rounds visit nodes in
a random order (the paper's randomized period, so no two nodes update in
lock-step). Deterministic for a seed.

The constants k, ε_min, i, j are not published; the defaults here are ours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SpringParams:
    k: float = 1.0  # force constant (ms per unit of log-ratio)
    epsilon: float = 0.01  # ε_min: stop moving below this total movement (ms)
    max_iterations: int = 100  # the paper's bound per update
    keep_nearest: int = 4  # i: lowest-latency peers kept after each round
    random_peers: int = 4  # j: fresh random peers per round
    rounds: int = 40  # update rounds over all nodes
    dimensions: int = 3


def relax(position: np.ndarray, peers: np.ndarray, latency: np.ndarray, p: SpringParams) -> np.ndarray:
    """Algorithm 1 for one node: move ``position`` against fixed ``peers`` towards the measured latencies."""
    pos = position.copy()
    for _ in range(p.max_iterations):
        d = peers - pos
        dist = np.linalg.norm(d, axis=1)
        dist = np.where(dist < 1e-9, 1e-9, dist)
        force = p.k * np.log(dist / latency)  # Algorithm 2: positive when too far → move towards the peer
        move = (d / dist[:, None] * force[:, None]).sum(axis=0)
        pos = pos + move
        if np.linalg.norm(move) <= p.epsilon:
            break
    return pos


def spring_coordinates(rtt: np.ndarray, params: SpringParams | None = None, seed: int = 0) -> np.ndarray:
    """Coordinates (n × dims) for a latency matrix with NaN where a pair was not measured."""
    p = params or SpringParams()
    rng = np.random.default_rng(seed)
    n = len(rtt)
    known = np.isfinite(rtt) & (rtt > 0)
    np.fill_diagonal(known, False)
    scale = float(np.nanmedian(np.where(known, rtt, np.nan))) if known.any() else 1.0
    pos = rng.uniform(-scale / 2, scale / 2, size=(n, p.dimensions))
    size = p.keep_nearest + p.random_peers
    peers = [_initial_peers(known[u], rng, size) for u in range(n)]
    for _ in range(p.rounds):
        for u in rng.permutation(n):
            chosen = peers[u]
            if len(chosen) == 0:
                continue
            pos[u] = relax(pos[u], pos[chosen], rtt[u, chosen], p)
            nearest = chosen[np.argsort(rtt[u, chosen])][: p.keep_nearest]
            others = np.setdiff1d(np.flatnonzero(known[u]), nearest)
            fresh: np.ndarray | list[int] = (rng.choice(others, size=min(p.random_peers, len(others)), replace=False)
                                             if len(others) else [])
            peers[u] = np.concatenate([nearest, np.asarray(fresh, dtype=int)]).astype(int)
    return pos


def _initial_peers(row: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
    candidates = np.flatnonzero(row)
    if len(candidates) <= size:
        return candidates
    return rng.choice(candidates, size=size, replace=False)
