"""benchmarks/autoscale.py's allocation bound: per rate, the fewest executors whose steady batches met a limit, as
measured, and the executor-minutes that gives over the pattern — on a hand-made run record."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.scripts import load_script

BENCH = load_script(Path(__file__).resolve().parents[1] / "benchmarks" / "autoscale.py", "autoscale_benchmark",
                    siblings=True)
START = 1_000_000.0


def _batch(batch_id: int, at: float, rows: int, took_s: float) -> dict[str, Any]:
    stamp = datetime.fromtimestamp(START + at, UTC).isoformat().replace("+00:00", "Z")
    return {"batchId": batch_id, "timestamp": stamp, "numInputRows": rows,
            "durationMs": {"triggerExecution": int(took_s * 1000)}}


def _run(low_s: float, high_s: float, second_added: float = 90.0) -> dict[str, Any]:
    """10 rows/s for 100 s on one executor (batches of ``low_s``), then 100 rows/s on two (``high_s``); the second
    executor registers at ``second_added``. Batches every 10 s; the first is the start-up's."""
    progress = [_batch(0, 0.0, 100, 40.0)]
    for k in range(1, 20):
        at = 10.0 * k
        high = at >= 100
        progress.append(_batch(k, at, 1000 if high else 100, high_s if high else low_s))
    progress.append(_batch(20, 195.0, 3000, 6.0))  # a backlog's batch: not steady
    executors = [{"id": "0", "cores": 2, "added": START - 10, "removed": None},
                 {"id": "1", "cores": 2, "added": START + second_added, "removed": None}]
    return {"levels": "0:10,100:100", "start": START, "trigger_s": 10.0, "progress": progress,
            "executors": executors}


def test_steady_batches_leave_out_the_start_a_change_and_a_backlog() -> None:
    steady = BENCH.steady_batches(_run(5.0, 6.0))
    # batch 0 is the start-up; batch 9 (at 90 s) and 10 (100 s, a new rate and 10 s after the registration) are
    # within two triggers of the change; 20 carried a backlog
    assert [(r, n) for r, n, _ in steady] == [(10.0, 1)] * 8 + [(100.0, 2)] * 9
    assert {t for _, _, t in steady} == {5.0, 6.0}


def test_the_bound_takes_the_fewest_executors_that_met_the_limit() -> None:
    minutes, fewest = BENCH.allocation_bound([_run(5.0, 6.0)], 7.0, 200.0)
    assert fewest == {10.0: 1, 100.0: 2}
    assert minutes == (100 * 1 + 100 * 2) / 60


def test_a_lower_rate_may_use_what_met_a_higher_one() -> None:
    # one executor ran the low rate at 8 s (over the limit of 7): the two that ran ten times the rows in 6 s would
    # run it faster still
    minutes, fewest = BENCH.allocation_bound([_run(8.0, 6.0)], 7.0, 200.0)
    assert fewest == {10.0: 2, 100.0: 2}
    assert minutes == 400 / 60


def test_no_bound_where_no_allocation_met_the_limit() -> None:
    assert BENCH.allocation_bound([_run(5.0, 6.0)], 5.5, 200.0) is None
