"""Elastic provisioning over time: arrival patterns, billing and the controllers of paper 004 (BTU-aware, threshold)."""

from streamplace.elastic.billing import Lease, lease_cost, paid_btus
from streamplace.elastic.patterns import PATTERNS, Pattern, load_trace, make_pattern

__all__ = ["PATTERNS", "Lease", "Pattern", "lease_cost", "load_trace", "make_pattern", "paid_btus"]
