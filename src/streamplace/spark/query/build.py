"""The runtime for a run: the placed one on a standalone cluster's workers, else the local one."""

from __future__ import annotations

from pyspark.sql import SparkSession

from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.spark.query.pipeline import LocalPipeline, Pipeline, PipelineConfig
from streamplace.spark.query.placed import PlacedPipeline


def pipeline_for(spark: SparkSession, topology: Topology, plan: Plan, cfg: PipelineConfig | None = None) -> Pipeline:
    """``topology`` and ``plan`` as a streaming query: PlacedPipeline where ``cfg.workers`` lists a standalone
    cluster's workers, else LocalPipeline."""
    cfg = cfg or PipelineConfig()
    return PlacedPipeline(spark, topology, plan, cfg) if cfg.workers is not None else \
        LocalPipeline(spark, topology, plan, cfg)
