"""Immutable, validated model of topologies, clusters, profiles and plans."""

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Operator, Stream, Topology

__all__ = [
    "Cluster",
    "Links",
    "Node",
    "Operator",
    "Plan",
    "Profile",
    "ProfileEntry",
    "Stream",
    "Topology",
]
