"""Spec files (YAML or JSON) ↔ model objects, with errors that name file, field and fix."""

from streamplace.spec.loader import (
    dump_topology,
    load_cluster,
    load_plan,
    load_profile,
    load_topology,
    read_document,
)

__all__ = [
    "dump_topology",
    "load_cluster",
    "load_plan",
    "load_profile",
    "load_topology",
    "read_document",
]
