"""Rate sources started on a known phase of the trigger (spark/query/phase.py): pure file handling, no Spark."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamplace.spark.query.phase import align_rate_sources, aligned_start_ms, lead_of, source_lead


@pytest.mark.parametrize("now_ms", [1_700_000_000_000, 1_700_000_000_949, 1_700_000_000_950, 1_700_000_000_999])
def test_start_is_the_latest_moment_with_the_lead(now_ms: int) -> None:
    start = aligned_start_ms(now_ms, 0.05)
    assert now_ms - 1000 < start <= now_ms
    assert start % 1000 == 950 and lead_of(start) == pytest.approx(0.05)


def test_a_fresh_checkpoint_gets_the_start_and_a_used_one_keeps_its_own(tmp_path: Path) -> None:
    ck = tmp_path / "ck"
    assert align_rate_sources(ck, [0, 2], 0.2, now_ms=1_700_000_000_500)
    assert (ck / "sources" / "0" / "0").read_text() == "v1\n1699999999800" == (ck / "sources" / "2" / "0").read_text()
    assert not (ck / "sources" / "1").exists()  # a file source's log is Spark's own
    assert source_lead(ck, 0) == pytest.approx(0.2) and source_lead(ck, 1) is None
    (ck / "offsets").mkdir()
    assert not align_rate_sources(ck, [0], 0.5, now_ms=1_700_000_000_500)  # a restart keeps the phase it had
    assert source_lead(ck, 0) == pytest.approx(0.2)


def test_a_head_start_moves_the_start_whole_seconds_back_on_the_same_phase(tmp_path: Path) -> None:
    now = 1_700_000_000_500
    assert align_rate_sources(tmp_path / "ck", [0], 0.2, now_ms=now, head_start_s=1)
    start = int((tmp_path / "ck" / "sources" / "0" / "0").read_text().split("\n")[1])
    # one second earlier than without: the query's first batch reads a whole second of rows
    assert start == aligned_start_ms(now, 0.2) - 1000 and now - start > 1000
    assert source_lead(tmp_path / "ck", 0) == pytest.approx(0.2)
