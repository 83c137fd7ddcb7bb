"""Reproducible per-tuple randomness: a uniform number per (tuple id, salt), the same on every replay."""

from __future__ import annotations

import zlib

import numpy as np


def salt_of(name: str) -> int:
    return zlib.crc32(name.encode()) & 0xFFFFFFFF


def unit_hash(values: np.ndarray, salt: int) -> np.ndarray:
    """A uniform number in [0, 1) per value (splitmix64 finalizer): deterministic, so a replayed batch is identical."""
    x = values.astype(np.uint64) ^ np.uint64(salt)
    with np.errstate(over="ignore"):
        x = x * np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)
