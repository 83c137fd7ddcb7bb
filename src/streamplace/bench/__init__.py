"""Built-in benchmark topologies and clusters, and name resolution for the CLI."""

from streamplace.bench.registry import list_builtins, resolve_cluster, resolve_profile, resolve_topology

__all__ = ["list_builtins", "resolve_cluster", "resolve_profile", "resolve_topology"]
