"""A placed stage's input: its upstream output routed to its replicas, one task each, each preferring its node."""

from __future__ import annotations

from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def spark():
    from streamplace.spark.runtime.session import local_session

    return local_session(2)


def test_a_placed_stage_runs_one_task_per_replica_preferring_its_node(spark, tmp_path: Path) -> None:
    """A chain of three operators with a replica of each on two nodes (unfused): every operator's stage has two
    tasks, partition l preferring the host of replica l's node (what Spark's DAGScheduler reads through the
    narrow lineage down to the LocatedRDD), and every row reaches the output once."""
    from streamplace.spark.measure.calibration import driver_probe_plan
    from streamplace.spark.query.pipeline import PipelineConfig
    from streamplace.spark.query.placed import PlacedPipeline

    topo, plan, workers = driver_probe_plan(2, 3)
    pipeline = PlacedPipeline(spark, topo, plan, PipelineConfig(sink="noop", out_dir=tmp_path, workers=workers,
                                                          fuse=False, trigger_s=0.0))
    batch = spark.range(60).selectExpr("current_timestamp() AS ts", "id AS value", "id AS key")
    frames, cached = pipeline.build_placed(batch, 0)
    out = frames[pipeline.outputs[0]]
    rdd = out._jdf.queryExecution().toRdd()
    assert rdd.getNumPartitions() == 2
    locs = [[str(loc.host()) for loc in _seq(spark.sparkContext._jsc.sc().getPreferredLocs(rdd, p))]
            for p in range(2)]
    assert locs == [[workers[0].host], [workers[1].host]]
    assert sorted(r["value"] for r in out.collect()) == list(range(60))
    for frame in cached:
        frame.unpersist()


def _seq(seq):  # a Scala Seq through Py4J
    return [seq.apply(i) for i in range(seq.size())]
