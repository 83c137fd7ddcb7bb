"""Executors released by the autoscaler while micro-batches run (issue 55's fault matrix, `remove`): the plain query
of examples/autoscale_query.py into Spark's Parquet file sink, at a rate low enough that streamplace.autoscale
releases executors of the four it starts with, batches back to back (1 s trigger), read back through the sink's
log by benchmarks/faults.py's own code."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_executors_released_while_batches_run_lose_and_double_nothing(tmp_path: Path) -> None:
    """At least one release falls inside a running batch (its time between the batch's trigger and its end, from
    the progress reports); every id below the highest committed is there once."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import faults
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    env = dict(os.environ, STREAMPLACE_HOME=str(tmp_path / "home"))
    got = faults.run_removal(tmp_path, env, None, levels_text="0:100", seconds=140.0)
    assert "failed" not in got.injected, got.injected
    assert got.measured, (got.injected, got.said)  # measured: a removal fell in a running batch
    assert any("in batch" in line for line in got.said), got.said
    assert got.rows > 1000
    assert (got.lost, got.duplicated) == (0, 0), (got.injected, got.said)
