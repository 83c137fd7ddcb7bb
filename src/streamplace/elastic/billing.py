"""Billing per BTU (billing time unit): every started BTU of a lease is paid in full (Hochreiner et al. 2017)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Lease:
    """A VM leased at ``start`` (s) and released at ``end`` (s; None while still running)."""

    start: float
    end: float | None = None

    def duration(self, now: float) -> float:
        return (self.end if self.end is not None else now) - self.start


def paid_btus(duration_s: float, btu_s: float) -> int:
    """Started BTUs: a lease of 0 < d ≤ BTU costs one, d slightly above two BTUs costs three."""
    if duration_s <= 0:
        return 0
    return max(1, math.ceil(duration_s / btu_s - 1e-9))


def lease_cost(leases: list[Lease], now: float, btu_s: float, price_per_btu: float) -> tuple[int, float]:
    """(BTUs paid, cost) of a set of leases at time ``now``."""
    btus = sum(paid_btus(lease.duration(now), btu_s) for lease in leases)
    return btus, btus * price_per_btu


def remaining_in_btu(lease: Lease, now: float, btu_s: float) -> float:
    """Seconds until the end of the lease's current (already paid) BTU."""
    used = lease.duration(now)
    return paid_btus(used, btu_s) * btu_s - used if used > 0 else btu_s
