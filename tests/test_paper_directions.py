"""The papers' claims that the model reproduces, asserted in their direction (docs/reproduction.md has the figures).

Where the model does not reproduce a claim (R-Storm's throughput gains without flow control, the size of
hetero's gains over the default), the reproduction page says so and why; nothing here asserts those.
"""

from __future__ import annotations

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.perf.engines import EngineSettings, IdealSettings
from streamplace.perf.evaluate import evaluate
from streamplace.schedulers import create


@pytest.mark.parametrize("topology", ["linear-cpu", "diamond-cpu", "star-cpu"])
def test_rstorm_packs_computation_bound_topologies_onto_fewer_busier_machines(topology: str) -> None:
    """Peng et al. 2015 §6.3.2: R-Storm uses fewer of the 12 machines than Storm's default (Diamond: 7) and
    their CPU utilization is higher (paper +69–350 %)."""
    t, c = resolve_topology(topology), resolve_cluster("rstorm-12")
    rs = evaluate(t, c, create("r-storm").plan(t, c))
    rr = evaluate(t, c, create("round-robin").plan(t, c))
    assert len(rs.nodes_used) <= 7 < len(rr.nodes_used) == 12
    assert rs.mean_utilization > 1.5 * rr.mean_utilization


@pytest.mark.parametrize("cap", ["machine", "thread"])
@pytest.mark.parametrize("scenario", ["nasiri-small", "nasiri-medium", "nasiri-large"])
def test_hetero_gains_more_throughput_than_utilization_over_the_default(scenario: str, cap: str) -> None:
    """Nasiri et al. 2023 Figs. 18–20 / Table 5: with the same replica counts, hetero's plan beats Storm's default
    in throughput, and the throughput gain exceeds the Eq. 7 weighted-utilization gain — under the paper's
    machine-only cap and under one thread per replica. The utilization gain itself is positive everywhere under
    the one-thread cap; under the paper's own cap it is not on nasiri-large (Linear −7 %, Star −25 %:
    docs/reproduction.md), so only its order below the throughput gain is asserted there."""
    engine = EngineSettings("ideal", ideal=IdealSettings(cap))
    for name in ("nasiri-linear", "nasiri-diamond", "nasiri-star"):
        t, c = resolve_topology(name), resolve_cluster(scenario)
        het = create("hetero", {"max_replicas": "10"}).plan(t, c, engine=engine)
        same = t.with_replicas(het.counts())
        d = evaluate(same, c, create("round-robin").plan(same, c), engine=engine)
        h = evaluate(t, c, het, engine=engine)
        gain_t = h.throughput / d.throughput - 1
        gain_u = h.weighted_utilization / d.weighted_utilization - 1
        assert gain_t > gain_u and gain_t > 0, name
        if cap == "thread" or scenario != "nasiri-large":
            assert gain_u > 0, name
