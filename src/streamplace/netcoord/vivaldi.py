"""Vivaldi (Dabek, Cox, Kaashoek, Morris, SIGCOMM 2004): decentralized network coordinates.

For a sample (RTT r_ij to node j at x_j with error e_j), node i weighs its
confidence w = e_i/(e_i + e_j), updates its error estimate
e_i ← e_s·c_e·w + e_i·(1 − c_e·w) with the relative sample error
e_s = |‖x_i − x_j‖ − r_ij| / r_ij, and moves x_i ← x_i + c_c·w·(r_ij − ‖x_i − x_j‖)·u(x_i − x_j).
c_c = c_e = 0.25 as in the paper. Samples are drawn at random among the
measured pairs; deterministic for a seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class VivaldiParams:
    cc: float = 0.25
    ce: float = 0.25
    rounds: int = 200  # samples per node
    dimensions: int = 3


def vivaldi_coordinates(rtt: np.ndarray, params: VivaldiParams | None = None, seed: int = 0) -> np.ndarray:
    p = params or VivaldiParams()
    rng = np.random.default_rng(seed)
    n = len(rtt)
    known = np.isfinite(rtt) & (rtt > 0)
    np.fill_diagonal(known, False)
    pos = rng.normal(scale=1e-3, size=(n, p.dimensions))
    err = np.ones(n)
    neighbours = [np.flatnonzero(known[u]) for u in range(n)]
    for _ in range(p.rounds):
        for i in rng.permutation(n):
            if len(neighbours[i]) == 0:
                continue
            j = int(rng.choice(neighbours[i]))
            r = rtt[i, j]
            w = err[i] / (err[i] + err[j])
            diff = pos[i] - pos[j]
            dist = float(np.linalg.norm(diff))
            es = abs(dist - r) / r
            err[i] = es * p.ce * w + err[i] * (1 - p.ce * w)
            unit = diff / dist if dist > 1e-12 else rng.normal(size=p.dimensions) / np.sqrt(p.dimensions)
            pos[i] = pos[i] + p.cc * w * (r - dist) * unit
    return pos
