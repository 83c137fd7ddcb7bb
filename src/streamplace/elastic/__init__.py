"""Elastic provisioning over time: arrival patterns, billing, Hochreiner et al.'s (2017) BTU and threshold control."""

from streamplace.elastic.billing import Lease, lease_cost, paid_btus
from streamplace.elastic.patterns import PATTERNS, Pattern, load_trace, make_pattern

__all__ = ["PATTERNS", "Lease", "Pattern", "lease_cost", "load_trace", "make_pattern", "paid_btus"]
