"""docs/reproduction.md's over-time R-Storm block is what benchmarks/repro_rstorm_time.py prints (deterministic:
no seed, no clock). Slow: 300 s of Storm per run, about 60 runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_committed_over_time_tables_are_what_repro_rstorm_time_prints(capsys) -> None:
    tool = load_script(ROOT / "scripts" / "reproduction_docs.py")
    assert any("repro_rstorm_time.py" in b.command for b in tool.blocks(tool.DOC.read_text().splitlines()))
    assert tool.main(["--check", "--only", "repro_rstorm_time.py"]) == 0, capsys.readouterr().out
