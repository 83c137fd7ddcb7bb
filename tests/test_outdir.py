"""Run output directories resume only their own pipeline (workflows/outdir.py)."""

from __future__ import annotations

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.errors import SpecError
from streamplace.schedulers import create
from streamplace.workflows.outdir import MARKER, claim, default_dir, pipeline_key


def keys():
    cluster = resolve_cluster("rstorm-12")
    linear, diamond = resolve_topology("linear"), resolve_topology("diamond")
    plan_a = create("r-storm").plan(linear, cluster)
    plan_b = create("ffd").plan(linear, cluster)
    return (pipeline_key(linear, plan_a, "parquet"), pipeline_key(linear, plan_b, "parquet"),
            pipeline_key(linear, plan_a, "noop"), pipeline_key(diamond, create("r-storm").plan(diamond, cluster),
                                                                "parquet"))


def test_each_pipeline_gets_its_own_default_directory(tmp_path) -> None:
    same, other_plan, other_sink, other_topology = keys()
    assert same == keys()[0]  # deterministic
    dirs = {default_dir(tmp_path, k) for k in (same, other_plan, other_sink, other_topology)}
    assert len(dirs) == 4 and default_dir(tmp_path, same).name.startswith("linear-net-")


def test_a_directory_resumes_its_own_pipeline_and_refuses_another(tmp_path) -> None:
    first, second, *_ = keys()
    out = tmp_path / "out"
    assert claim(out, first) == out and (out / MARKER).exists()
    (out / "_checkpoint").mkdir()
    assert claim(out, first) == out  # the same pipeline resumes
    with pytest.raises(SpecError, match="holds the checkpoint and output of pipeline 'linear-net'"):
        claim(out, second)


def test_a_checkpoint_without_a_record_is_not_resumed_blindly(tmp_path) -> None:
    (tmp_path / "old" / "_checkpoint").mkdir(parents=True)
    with pytest.raises(SpecError, match="recorded no pipeline"):
        claim(tmp_path / "old", keys()[0])
