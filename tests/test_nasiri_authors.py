"""The authors' data blocks (Nasiri et al.'s simulator) as built-in instances: our CPU model is theirs."""

from __future__ import annotations

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_profile, resolve_topology
from streamplace.bench.nasiri_authors import BOLTS, RC_TYPES, SCENARIOS, UV_TYPES
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers import create


@pytest.mark.parametrize("scenario", ["rc-s2", "uv-s5", "uv-amd"])
def test_node_cpu_is_the_authors_formula(scenario: str) -> None:
    """For hetero's plan, every machine's predicted CPU equals Σ (IR − IR0)/Y + U0 over its instances, with the
    block's IR0, Y and U0 for that bolt and machine type (the authors' simulator's formula)."""
    bench, layout, _ = SCENARIOS[scenario]
    topo = resolve_topology("rollingcount-authors" if bench == "rc" else "uniquevisitor-authors")
    cl, prof = resolve_cluster(f"nasiri-authors-{scenario}"), resolve_profile(f"nasiri-authors-{bench}")
    plan = create("hetero").plan(topo, cl, prof)
    model = ThroughputModel.build(topo, cl, prof)
    counts = np.array([[plan.replicas.get(op.id, {}).get(n.id, 0) for n in cl.nodes] for op in topo.operators])
    scale = model.max_scale(counts)
    ours = model.node_cpu(counts, scale)
    types = RC_TYPES if bench == "rc" else UV_TYPES
    per = model.per_replica(counts.sum(axis=1)) * scale  # tuples/s into one instance of each operator
    theirs = np.zeros(len(cl))
    for u, t in enumerate(layout):
        for b, bolt in enumerate(BOLTS[bench]):
            ir0, _, y, u0 = types[f"authors-{t}"][b]
            i = topo.index[bolt]
            theirs[u] += counts[i, u] * ((per[i] - ir0) / y + u0)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-9)
    assert ours.max() <= 100 + 1e-6  # within the machines' capacity at the plan's rate


def test_the_authors_large_overheads_are_where_the_papers_algorithm_falls_short() -> None:
    """UniqueVisitor on nine 'AMD' machines (MET 29 and 36 % of a machine): hetero, which never removes an
    instance, ends far below the optimum; max-throughput reaches it."""
    topo, cl = resolve_topology("uniquevisitor-authors"), resolve_cluster("nasiri-authors-uv-amd")
    prof = resolve_profile("nasiri-authors-uv")
    opt = create("optimal", {"time_limit_s": "60"}).plan(topo, cl, prof)
    het = create("hetero", {"max_replicas": "10"}).plan(topo, cl, prof)
    ours = create("max-throughput").plan(topo, cl, prof)
    assert opt.status == "ok"
    assert het.predicted["throughput"] < 0.5 * opt.predicted["throughput"]
    assert ours.predicted["throughput"] >= 0.99 * opt.predicted["throughput"]
