"""hetero's three rules where the authors' simulator departs from the paper's text, each on a crafted instance."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_profile, resolve_topology
from streamplace.model.cluster import Cluster, Node
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers import create
from streamplace.schedulers.hetero import State, _best_machine, _over, _ratio_bottleneck


def instance(caps: list[float], ops: list[tuple[str, float]], rate: float = 100.0) -> ThroughputModel:
    """A chain src → ops… (cost ms per tuple, MET 2) on nodes of equal speed with the given CPU points."""
    chain = [Operator("src", "source", rate=rate, cost_ms=0.0, overhead=0.0, memory_mb=1.0)]
    chain += [Operator(name, "sink" if k == len(ops) - 1 else "operator", cost_ms=cost, overhead=2.0, memory_mb=1.0)
              for k, (name, cost) in enumerate(ops)]
    streams = tuple(Stream(a.id, b.id) for a, b in pairwise(chain))
    nodes = tuple(Node(f"n{k}", cpu=c, memory_mb=1e6) for k, c in enumerate(caps))
    return ThroughputModel.build(Topology("t", tuple(chain), streams), Cluster("c", nodes))


def test_ties_least_loaded_or_lowest_id() -> None:
    # two equally fast nodes; n0 carries the operator's instance and n1 nothing: the text's "most suitable"
    # (our reading: least loaded) picks n1, the authors' table order picks n0
    model = instance([100, 100], [("w", 2.0)], rate=20)
    st = State.of(model, np.array([[1, 0], [1, 0]]))
    assert _best_machine(model, st, 1.0, 1, "least-loaded") == [1]
    assert _best_machine(model, st, 1.0, 1, "lowest-id") == [0]


def test_multi_add_places_several_where_one_fits_nowhere() -> None:
    # w: 100 t/s at 0.5 points per t/s + MET 2 = 52 on n0 (52 points); n1, n2 have 20 points. One more instance
    # takes 50 t/s (27 points): n0 would hold 25 + 2 + 27 = 54 > 52, n1 and n2 27 > 20 — nowhere. Two more take
    # 33.3 t/s each (18.7 points): n0 then holds 18.7 + 18.7 = 37.3 and the second goes to n1.
    model = instance([52, 20, 20], [("w", 5.0)])
    st = State.of(model, np.array([[1, 0, 0], [1, 0, 0]]))
    assert _best_machine(model, st, 1.0, 1, extra=1) is None
    assert _best_machine(model, st, 1.0, 1, extra=2) == [0, 1]


def test_bottleneck_hottest_on_the_first_machine_or_largest_ratio() -> None:
    # At 80 t/s (stable) n0 holds a (10 ms: 82 points) and b (0.5 ms: 6) of 100, n1 holds c (2 ms: 18) of 19. At
    # 1.3 × that rate both are over. The text takes the hottest task of the first over-utilized machine: a. The
    # authors' code takes the largest ratio of new to available input rate over all of them: a 104 / (80 + 12/1.0)
    # = 1.13, b 104 / (80 + 12/0.05) = 0.33, c 104 / (80 + 1/0.2) = 1.22 — c.
    model = instance([100, 19], [("a", 10.0), ("b", 0.5), ("c", 2.0)], rate=80)
    counts = np.array([[1, 0], [1, 0], [1, 0], [0, 1]])
    stable = State.of(model, counts)
    now = State.of(model, counts)
    assert _over(model, now, 1.3)[1] == 1  # a: the hottest task on n0
    assert _ratio_bottleneck(model, now, 1.3, stable, 1.0) == 3  # c


@pytest.mark.parametrize("rules", [{"bottleneck": "ratio"}, {"multi_add": "199"}, {"ties": "lowest-id"}])
def test_each_rule_is_a_parameter_and_the_text_is_the_default(rules: dict[str, str]) -> None:
    topo, cl = resolve_topology("rollingcount-authors"), resolve_cluster("nasiri-authors-rc-s5")
    prof = resolve_profile("nasiri-authors-rc")
    default = create("hetero").plan(topo, cl, prof)
    text = create("hetero", {"bottleneck": "hottest", "multi_add": "0", "ties": "least-loaded"}).plan(topo, cl, prof)
    assert default.replicas == text.replicas
    assert create("hetero", rules).plan(topo, cl, prof).usable
