"""Measured RTTs (noisy, some pairs missing) → coordinates → a full latency matrix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from streamplace.netcoord.spring import SpringParams, spring_coordinates
from streamplace.netcoord.vivaldi import VivaldiParams, vivaldi_coordinates


@dataclass(frozen=True)
class Coordinates:
    positions: np.ndarray  # n × dims

    def latency(self) -> np.ndarray:
        """Estimated latency for every pair: the Euclidean distance between coordinates."""
        diff = self.positions[:, None, :] - self.positions[None, :, :]
        return np.linalg.norm(diff, axis=2)


def estimate(rtt: np.ndarray, method: Literal["spring", "vivaldi"] = "spring", seed: int = 0,
             spring: SpringParams | None = None, vivaldi: VivaldiParams | None = None) -> Coordinates:
    """Coordinates from a symmetric matrix of measured latencies (NaN where not measured).

    Give one-way latencies or round-trip times consistently: the estimate is in the same unit.
    """
    rtt = np.asarray(rtt, dtype=float)
    if rtt.ndim != 2 or rtt.shape[0] != rtt.shape[1]:
        raise ValueError(f"latency matrix must be square, got shape {rtt.shape}")
    if method == "spring":
        return Coordinates(spring_coordinates(rtt, spring, seed))
    if method == "vivaldi":
        return Coordinates(vivaldi_coordinates(rtt, vivaldi, seed))
    raise ValueError(f"unknown method {method!r} (use spring or vivaldi)")


def median_relative_error(estimated: np.ndarray, true: np.ndarray) -> float:
    """Median over distinct pairs of |estimated − true| / true."""
    iu = np.triu_indices(len(true), k=1)
    t = true[iu]
    ok = t > 0
    return float(np.median(np.abs(estimated[iu][ok] - t[ok]) / t[ok]))
