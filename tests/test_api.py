"""The Python API (streamplace.api, re-exported by the package)."""

from __future__ import annotations

import json

import pytest

import streamplace as sp
from streamplace.errors import StreamplaceError


def test_plan_evaluate_compare_from_names_paths_and_mappings() -> None:
    topology, cluster = sp.load_topology("diamond-cpu"), sp.load_cluster("examples/cluster.yaml")
    assert topology.name == "diamond-cpu" and len(cluster) > 0
    plan = sp.plan("linear", "rstorm-12", "r-storm", params={"weights.network": 2.0})
    assert plan.status == "ok" and plan.params["weights"]["network"] == 2.0
    ev = sp.evaluate("linear", "rstorm-12", plan)
    assert ev.predicted()["throughput"] == pytest.approx(plan.predicted["throughput"])
    # the API predicts for the command line's engine unless told otherwise (they differed before issue 40)
    ideal = sp.plan("linear", "rstorm-12", "r-storm", engine="ideal")
    assert plan.predicted["engine"] == "spark" and ideal.predicted.get("engine", "ideal") == "ideal"
    from typer.testing import CliRunner

    from streamplace.cli import app

    cli = CliRunner().invoke(app, ["plan", "linear", "rstorm-12", "-s", "r-storm", "-p", "weights.network=2",
                                   "--json"])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout)["predicted"] == json.loads(plan.to_json())["predicted"]
    rows = sp.compare("linear", "rstorm-12", ["ffd", "hetero", "exhaustive"], time_limit_s=5)
    assert [r.scheduler for r in rows] == ["ffd", "hetero", "exhaustive"]
    assert [r.status for r in rows] == ["ok", "ok", "refused"] and "max_candidates" in (rows[2].error or "")
    # hetero plans for its own maximum rate; its row's figures but throughput are at the offered rate
    assert rows[1].plan.source_rates != rows[0].plan.source_rates
    assert rows[1].value("delivered_throughput") == pytest.approx(rows[0].value("delivered_throughput"))
    with pytest.raises(StreamplaceError, match="unknown scheduler"):
        sp.compare("linear", "rstorm-12", ["ffd", "no-such"])
    mapping = {"name": "m", "operators": [{"id": "a", "kind": "source", "rate": 5}, {"id": "b"}],
               "streams": [{"from": "a", "to": "b"}]}
    assert sp.plan(mapping, "rstorm-12", "ffd").status == "ok"


def test_bad_input_raises_a_streamplace_error_that_names_the_fix() -> None:
    with pytest.raises(StreamplaceError, match="fix"):
        sp.load_topology("no-such-topology")
    with pytest.raises(StreamplaceError, match="unknown engine"):
        sp.engine_settings("flink")
    with pytest.raises(AttributeError):
        sp.no_such_function  # noqa: B018


def test_the_comparison_plot_shows_every_scheduler_with_its_status() -> None:
    import matplotlib.pyplot as plt

    from streamplace.report.compare import ComparisonRow
    from streamplace.report.plots import comparison_figure

    ok = sp.plan("linear", "rstorm-12", "ffd")
    infeasible = sp.plan("pageload-cpu", "hetero-3", "ffd")  # 19,000 MB on 16,384 MB
    rows = [ComparisonRow("ffd", ok), ComparisonRow("tight", infeasible), ComparisonRow("exhaustive", None, "too big")]
    fig = comparison_figure(rows, "t")
    # names on the y axis, first on top: horizontal bars keep long names legible (they overlapped on an x axis)
    ticks = {t.get_text(): y for t, y in zip(fig.axes[0].get_yticklabels(), fig.axes[0].get_yticks(), strict=True)}
    assert sorted(ticks, key=lambda n: -ticks[n]) == ["ffd", "tight", "exhaustive"]
    for ax in fig.axes:
        texts = [t.get_text() for t in ax.texts]
        assert texts[1:] == ["infeasible", "refused"] and texts[0] not in ("", "infeasible")  # ffd's value
        assert ax.get_xlabel()  # every value axis has its unit
    plt.close(fig)
    better = sp.plan("linear", "rstorm-12", "r-storm")
    fig = comparison_figure([ComparisonRow("ffd", ok), ComparisonRow("r-storm", better)], "t")
    stars = [t.get_text() for ax in fig.axes for t in ax.texts if "★" in t.get_text()]
    assert stars  # the best value of a panel where the plans differ is marked
    plt.close(fig)


def test_compare_places_the_counts_of_a_parallelism_chooser_as_the_paper_compares() -> None:
    """Nasiri et al. compare Storm's default given their algorithm's replica counts; --counts-from does that."""
    plain = sp.compare("nasiri-linear", "hetero-3", ["round-robin", "hetero"], time_limit_s=10)
    paper = sp.compare("nasiri-linear", "hetero-3", ["round-robin", "hetero"], time_limit_s=10, counts_from="hetero")
    hetero_counts = paper[1].plan.counts()
    assert paper[0].plan.counts() == hetero_counts != plain[0].plan.counts()
    assert any("counts from hetero" in note for note in paper[0].notes)
    assert paper[0].value("throughput") > plain[0].value("throughput")  # 14 replicas place more work than 4
    with pytest.raises(StreamplaceError, match="keeps the requested replica counts"):
        sp.compare("nasiri-linear", "hetero-3", ["round-robin"], counts_from="r-storm")


def test_the_api_names_the_argument_a_wrong_value_was_given_for() -> None:
    """The bad-input corpus: a topology given as an int or bytes, a cluster as None, a profile or a plan as a
    path string, a plan naming an unknown node, run(duration_s=-5) — each a SpecError naming the argument (or
    the plan's field) before anything runs, or, for paths, loaded."""
    from streamplace.errors import SpecError

    for topology, cluster, field in ((3, "hetero-3", "topology"), (b"linear", "hetero-3", "topology"),
                                     ("nasiri-linear", None, "cluster"), ("nasiri-linear", 5.0, "cluster")):
        with pytest.raises(SpecError, match=field):
            sp.plan(topology, cluster, "hetero")
    plan = sp.plan("nasiri-linear", "hetero-3", "hetero")
    moved = plan.evolve(replicas={**plan.replicas, "spout": {"nowhere": 1}})
    with pytest.raises(SpecError, match=r"replicas\.spout\.nowhere"):
        sp.evaluate("nasiri-linear", "hetero-3", moved)
    with pytest.raises(SpecError, match="duration_s"):
        sp.run("nasiri-linear", "hetero-3", plan, duration_s=-5)
    with pytest.raises(SpecError, match="profile"):
        sp.plan("nasiri-linear", "hetero-3", "hetero", profile=42)


def test_the_api_loads_a_plan_given_as_a_path(tmp_path) -> None:
    from streamplace.model.plan import json_text

    plan = sp.plan("nasiri-linear", "hetero-3", "hetero")
    path = tmp_path / "plan.json"
    path.write_text(json_text(plan.to_dict()))
    direct = sp.evaluate("nasiri-linear", "hetero-3", plan).predicted()["throughput"]
    assert sp.evaluate("nasiri-linear", "hetero-3", str(path)).predicted()["throughput"] == pytest.approx(direct)


#: run in a fresh interpreter: which of the subpackage's forms comes first decides nothing
_SCHEDULERS_AFTER_THE_SUBPACKAGE = """
import inspect, sys
{first}
import streamplace as sp
import streamplace.schedulers.rstorm as rstorm
from streamplace.schedulers import create
from streamplace.workflows.planning import schedulers as catalogue

names = [s.name for s in sp.schedulers()]
assert names == [s.name for s in catalogue()] and "ds2" in names and "r-storm" in names, names
assert sp.schedulers.create is create and sp.schedulers.rstorm is rstorm  # the subpackage's attributes
assert vars(sp)["schedulers"] is sys.modules["streamplace.schedulers"]
assert str(inspect.signature(sp.schedulers)).startswith("()"), inspect.signature(sp.schedulers)
from streamplace import schedulers
assert schedulers is sp.schedulers
print("ok")
"""


@pytest.mark.parametrize("first", ["import streamplace.schedulers", "import streamplace.schedulers.ds2",
                                   "from streamplace.schedulers import create",
                                   "import streamplace.schedulers.rstorm as r; from streamplace.schedulers.base "
                                   "import BaseScheduler", "import streamplace.api", "pass"])
def test_sp_schedulers_is_the_catalogue_whatever_was_imported_first(first: str) -> None:
    """Importing the subpackage ``streamplace.schedulers`` bound it on the package over the API's function:
    ``sp.schedulers()`` was "TypeError: 'module' object is not callable" once anything had imported it."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _SCHEDULERS_AFTER_THE_SUBPACKAGE.format(first=first)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_subpackage_s_attributes_are_set_through_sp_schedulers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A monkeypatch by dotted name reaches the subpackage itself (pytest resolves it through the package's
    attribute), and is undone there."""
    import importlib

    package = importlib.import_module("streamplace.schedulers")  # the module itself (`import … as` would not be)
    original = package.create
    monkeypatch.setattr("streamplace.schedulers.create", "patched")
    assert package.create == "patched" and sp.schedulers.create == "patched"
    monkeypatch.undo()
    assert package.create is original
    assert callable(sp.schedulers) and "create" in dir(sp.schedulers)
