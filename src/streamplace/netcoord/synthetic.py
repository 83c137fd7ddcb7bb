"""A synthetic compute continuum for testing network coordinates: edge sites, a metro, a cloud.

Nodes sit on a plane (positions in ms of propagation delay) plus an access
delay per tier: edge devices around a few edge sites (5 ms access), metro
servers in a ring (1 ms), cloud servers in one far data centre (0.5 ms).
Latency u–v = distance + access_u + access_v (one way). Measurements add
multiplicative log-normal jitter and drop a share of the pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Continuum:
    names: list[str]
    tiers: list[str]
    latency: np.ndarray  # true one-way latency, ms


def continuum(edge_sites: int = 4, per_site: int = 4, metro: int = 4, cloud: int = 4, seed: int = 1) -> Continuum:
    rng = np.random.default_rng(seed)
    pos, access, names, tiers = [], [], [], []
    for s in range(edge_sites):
        centre = rng.uniform(-15, 15, size=2)
        for k in range(per_site):
            pos.append(centre + rng.normal(scale=0.5, size=2))
            access.append(5.0)
            names.append(f"edge{s}-{k}")
            tiers.append("edge")
    for k in range(metro):
        angle = 2 * np.pi * k / max(metro, 1)
        pos.append(np.array([np.cos(angle), np.sin(angle)]) * 5.0)
        access.append(1.0)
        names.append(f"metro-{k}")
        tiers.append("metro")
    dc = np.array([40.0, 25.0])
    for k in range(cloud):
        pos.append(dc + rng.normal(scale=0.2, size=2))
        access.append(0.5)
        names.append(f"cloud-{k}")
        tiers.append("cloud")
    p = np.array(pos)
    a = np.array(access)
    lat = np.linalg.norm(p[:, None] - p[None], axis=2) + a[:, None] + a[None, :]
    np.fill_diagonal(lat, 0.0)
    return Continuum(names, tiers, lat)


def measure(true: np.ndarray, jitter: float = 0.1, missing: float = 0.3, seed: int = 2) -> np.ndarray:
    """A noisy, incomplete, symmetric measurement of ``true`` (NaN where missing)."""
    rng = np.random.default_rng(seed)
    n = len(true)
    noise = rng.lognormal(mean=0.0, sigma=jitter, size=(n, n))
    m = true * np.sqrt(noise * noise.T)
    drop = np.triu(rng.random((n, n)) < missing, k=1)
    drop = drop | drop.T
    m[drop] = np.nan
    np.fill_diagonal(m, 0.0)
    return m
