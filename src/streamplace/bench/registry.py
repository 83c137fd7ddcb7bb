"""Resolve a spec argument: a file path, or the name of a built-in benchmark."""

from __future__ import annotations

from pathlib import Path

from streamplace.bench import nasiri_authors
from streamplace.bench.clusters import BUILTIN_CLUSTERS, parametric_cluster
from streamplace.bench.topologies import BUILTIN_TOPOLOGIES
from streamplace.errors import Problem, SpecError
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.spec.loader import load_cluster, load_profile, load_topology

#: built-in profiles: name → (factory, description)
BUILTIN_PROFILES = {
    "nasiri-authors-rc": (lambda: nasiri_authors.profile("rc"),
                          "Nasiri et al.'s simulator: RollingCount's per-(bolt, machine type) e and MET"),
    "nasiri-authors-uv": (lambda: nasiri_authors.profile("uv"),
                          "Nasiri et al.'s simulator: UniqueVisitor's per-(bolt, machine type) e and MET"),
}


def _looks_like_path(arg: str) -> bool:
    return arg == "-" or arg.endswith((".yaml", ".yml", ".json")) or "/" in arg or Path(arg).exists()


def resolve_topology(arg: str) -> Topology:
    if arg in BUILTIN_TOPOLOGIES and not Path(arg).exists():
        return BUILTIN_TOPOLOGIES[arg][0]()
    if _looks_like_path(arg):
        return load_topology(arg)
    raise SpecError([Problem("", f"no topology file or built-in named {arg!r}",
                             f"give a YAML/JSON path or one of: {', '.join(BUILTIN_TOPOLOGIES)}")], arg)


def resolve_cluster(arg: str) -> Cluster:
    if arg in BUILTIN_CLUSTERS and not Path(arg).exists():
        return BUILTIN_CLUSTERS[arg][0]()
    generated = parametric_cluster(arg)
    if generated is not None:
        return generated
    if _looks_like_path(arg):
        return load_cluster(arg)
    raise SpecError([Problem("", f"no cluster file or built-in named {arg!r}",
                             f"give a YAML/JSON path or one of: {', '.join(BUILTIN_CLUSTERS)}, racks-RxN")], arg)


def resolve_profile(arg: str | Path) -> Profile:
    """A profile file, or the name of a built-in profile."""
    if str(arg) in BUILTIN_PROFILES and not Path(arg).exists():
        return BUILTIN_PROFILES[str(arg)][0]()
    if _looks_like_path(str(arg)):
        return load_profile(arg)
    raise SpecError([Problem("", f"no profile file or built-in named {str(arg)!r}",
                             f"give a YAML/JSON path or one of: {', '.join(BUILTIN_PROFILES)}")], str(arg))


def list_builtins() -> list[tuple[str, str, str]]:
    """(kind, name, description) of every built-in."""
    rows = [("topology", name, desc) for name, (_, desc) in BUILTIN_TOPOLOGIES.items()]
    rows += [("cluster", name, desc) for name, (_, desc) in BUILTIN_CLUSTERS.items()]
    rows += [("profile", name, desc) for name, (_, desc) in BUILTIN_PROFILES.items()]
    rows.append(("cluster", "racks-RxN", "generated: R racks × N nodes (4 cores, 16 GB), e.g. racks-25x40"))
    return rows
