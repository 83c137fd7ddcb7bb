"""Output directories keyed to the pipeline they hold: a run resumes only its own checkpoint.

A streaming query resumes from whatever checkpoint its directory holds. Before this,
``run`` wrote to ``run-out/`` by default, and a second topology run there silently
resumed the first one's offsets (throughput 0, or latencies of 45 minutes). Now the
directory records the pipeline it belongs to in ``_pipeline.json`` — the topology's
name and a digest of the topology, the plan's replicas and source rates, and the sink —
and the default directory is ``BASE/TOPOLOGY-DIGEST``, so different pipelines never
share one. An explicit directory that holds another pipeline's checkpoint is refused
with the way out (another directory, or delete it), never resumed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from streamplace.errors import Problem, SpecError
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.spec.loader import topology_to_doc

MARKER = "_pipeline.json"
#: what in a directory shows a streaming query ran there (pipeline.py's checkpoint location)
CHECKPOINT = "_checkpoint"


def pipeline_key(topology: Topology, plan: Plan, sink: str) -> dict[str, str]:
    """The topology's name and a 12-hex-digit digest of everything a checkpoint depends on."""
    doc = {"topology": topology_to_doc(topology), "replicas": {k: dict(v) for k, v in plan.replicas.items()},
           "source_rates": dict(plan.source_rates), "sink": sink,
           "sources": "bounded-v1"}  # the bounded sources' offsets ({"rows": n}) are not the rate source's
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return {"topology": topology.name, "digest": digest}


def default_dir(base: Path, key: dict[str, str]) -> Path:
    return base / f"{key['topology']}-{key['digest']}"


def run_dir(topology: Topology, plan: Plan, sink: str, out_dir: Path | None, base: Path = Path("run-out"),
            option: str = "out_dir") -> Path:
    """The directory a run of this pipeline writes to and resumes from: ``out_dir``, else ``BASE/TOPOLOGY-DIGEST``,
    claimed for it (claim)."""
    key = pipeline_key(topology, plan, sink)
    return claim(out_dir if out_dir is not None else default_dir(base, key), key, option)


def claim(out_dir: Path, key: dict[str, str], option: str = "out_dir") -> Path:
    """Make ``out_dir`` this pipeline's (creating it), or raise SpecError when it holds another pipeline's run."""
    marker = out_dir / MARKER
    if marker.exists():
        try:
            held: Any = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            held = None
        if not isinstance(held, dict) or held.get("digest") != key["digest"]:
            what = (f"pipeline {held.get('topology')!r} ({held.get('digest')})" if isinstance(held, dict)
                    else "an unreadable pipeline record")
            raise SpecError([Problem(option, f"the directory holds the checkpoint and output of {what}, not of "
                                             f"this one ({key['topology']!r}, {key['digest']}): resuming would "
                                             "start from that pipeline's offsets",
                                     "give another [[out_dir]] (or none: each pipeline gets its own), or delete "
                                     "the directory to start over")], str(out_dir))
        return out_dir
    if (out_dir / CHECKPOINT).exists():
        raise SpecError([Problem(option, "the directory holds a checkpoint of an earlier run that recorded no "
                                         "pipeline, so it cannot be told whether it is this one",
                                 "give another [[out_dir]], or delete this one to start over")], str(out_dir))
    out_dir.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(key, indent=2) + "\n", encoding="utf-8")
    return out_dir
