"""The placement picture (report/placement.py): a plan drawn on its cluster, as SVG text that can be searched."""

from __future__ import annotations

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.bench.clusters import racks
from streamplace.bench.topologies import storm_large
from streamplace.perf.evaluate import evaluate
from streamplace.report.placement import DETAIL_NODES, boxes, heaviest_pairs, node_traffic, svg_text, write_placement
from streamplace.schedulers import create


def test_a_small_plan_shows_every_node_its_replicas_and_the_bottleneck(tmp_path) -> None:
    topo, cluster = resolve_topology("nasiri-diamond"), resolve_cluster("hetero-12")
    plan = create("max-throughput", {}).plan(topo, cluster)
    ev = evaluate(topo, cluster, plan)
    svg = svg_text(topo, cluster, plan, ev)
    assert all(node.id in svg for node in cluster.nodes)
    for op, per in plan.replicas.items():
        assert any(count for count in per.values()) and f"{op} ×" in svg  # each operator's chips
    assert f"limit: {ev.bottleneck}" in svg and "tuples/s sustainable" in svg
    drawn, _, _, _ = boxes(topo, cluster, plan, ev)
    hot = [b for b in drawn if b.bottleneck]
    assert len(hot) == 1 and hot[0].label in ev.bottleneck  # the node the evaluation names is framed
    assert write_placement(topo, cluster, plan, ev, tmp_path / "p.svg").read_text().startswith("<?xml")
    assert write_placement(topo, cluster, plan, ev, tmp_path / "p.png").stat().st_size > 10_000


def test_the_arcs_carry_the_predicted_inter_node_tuples() -> None:
    topo, cluster = resolve_topology("t-r3"), resolve_cluster("continuum-11")
    plan = create("round-robin", {}).plan(topo, cluster)
    ev = evaluate(topo, cluster, plan)
    flow = node_traffic(ev, topo)
    remote = float((ev.streams.tuples * (1.0 - ev.streams.local_fraction)).sum())
    assert flow.sum() == pytest.approx(remote) and np.all(np.diag(flow) == 0)
    pairs, share = heaviest_pairs(np.triu(flow + flow.T))
    assert 0 < len(pairs) <= 24 and (share >= 0.8 - 1e-9 or len(pairs) == 24)


def test_a_thousand_nodes_are_summarized_per_rack_and_type() -> None:
    cluster, topo = racks(10, 100), storm_large(5, 50, 40, 100)
    plan = create("r-storm", {}).plan(topo, cluster)
    ev = evaluate(topo, cluster, plan)
    drawn, traffic, titles, _ = boxes(topo, cluster, plan, ev)
    assert len(cluster) > DETAIL_NODES and len(drawn) == 10  # one box per rack (one machine type each)
    assert sum(sum(b.replicas.values()) for b in drawn) == plan.total_replicas()
    assert titles[0] == "rack01" and "× 100" in drawn[0].label and traffic.shape == (10, 10)
    svg = svg_text(topo, cluster, plan, ev)
    assert "more operators" in svg and "100 used" in svg


def test_plan_and_evaluate_draw_the_picture_from_the_cli(tmp_path) -> None:
    from typer.testing import CliRunner

    from streamplace.cli import app

    runner = CliRunner()
    plan_file, first, second = tmp_path / "plan.json", tmp_path / "plan.svg", tmp_path / "eval.png"
    res = runner.invoke(app, ["plan", "linear", "rstorm-12", "-o", str(plan_file), "--picture", str(first)])
    assert res.exit_code == 0, res.output
    assert "picture written" in res.output and "w01" in first.read_text()
    res = runner.invoke(app, ["evaluate", "linear", "rstorm-12", str(plan_file), "--picture", str(second)])
    assert res.exit_code == 0 and second.read_bytes()[:4] == b"\x89PNG"
    res = runner.invoke(app, ["plan", "linear", "rstorm-12", "--picture", str(tmp_path / "no" / "p.svg")])
    assert res.exit_code == 2 and "does not exist" in res.output  # refused before planning


def test_compare_html_shows_every_plan_s_picture_side_by_side(tmp_path) -> None:
    from typer.testing import CliRunner

    from streamplace.cli import app

    page = tmp_path / "compare.html"
    res = CliRunner().invoke(app, ["compare", "linear", "rstorm-12", "-s", "r-storm,round-robin,hetero",
                                   "--html", str(page)])
    assert res.exit_code == 0, res.output
    text = page.read_text()
    assert text.count("<svg") == 3 and "<?xml" not in text  # inline, one per usable plan
    assert all(f"<figcaption>{s}</figcaption>" in text for s in ("r-storm", "round-robin", "hetero"))
    assert "data:image/png;base64," in text and "<h2>Placements</h2>" in text
    res = CliRunner().invoke(app, ["compare", "linear", "rstorm-12", "--html", str(tmp_path / "no" / "c.html")])
    assert res.exit_code == 2 and "does not exist" in res.output
