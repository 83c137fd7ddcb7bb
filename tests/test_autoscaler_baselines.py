"""The baseline rules (autoscaler/baselines.py) on hand-worked cases: Elastic-Scaling's occupation rule and Spark's
DStreams dynamic allocation, pure, no Spark.

The trigger is 10 s throughout, so a batch of d ms has usage (ratio) d / 10,000.
"""

from __future__ import annotations

import inspect

import pytest

from streamplace.autoscaler.baselines import (
    OCCUPATION_MAX_EXECUTORS,
    POLICIES,
    dstreams_rule,
    occupation_rule,
)
from streamplace.autoscaler.decide import decide
from streamplace.autoscaler.options import AutoscaleOptions, WorkerType
from streamplace.autoscaler.state import Batch, Executor, Memory, View

TRIGGER = 10.0
OPTS = AutoscaleOptions()
#: the DStreams timer started at 0 s: its first check is due at 60 s (a fresh Memory starts it at the call)
STARTED = Memory(last_check_s=0.0)


def batch(at: float, ms: int, rows: int = 100, batch_id: int = 0) -> Batch:
    return Batch(at_s=at, batch_id=batch_id, rows=rows, duration_s=ms / 1000.0, capacity=1.0, executors=1)


def executors(*ids: int) -> tuple[Executor, ...]:
    return tuple(Executor(str(i), f"h{i}", 1, float(i)) for i in ids)


def view(now: float, bs: list[Batch], exe: tuple[Executor, ...], **kw: object) -> View:
    return View(now_s=now, target_batch_s=TRIGGER, batches=tuple(bs), executors=exe, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------- occupation (Elastic-Scaling)

def test_occupation_scales_up_on_the_smoothed_usage() -> None:
    d, memory = occupation_rule(view(10, [batch(10, 13_000)], executors(1, 2, 3, 4)), Memory(), OPTS)
    # usage 13,000 / 10,000 = 1.3; seeded num = den = 1: num = 0.6·1 + 1.3 = 1.9, den = 0.6·1 + 1 = 1.6,
    # smoothed 1.9 / 1.6 = 1.1875 > 1.0 → ceil(4 × 1.1875) = ceil(4.75) = 5 executors: one more
    assert d.action == "up" and d.rule == "occupation" and d.add == ("default",)
    assert d.utilization == pytest.approx(1.1875) and d.target_executors == 5
    assert memory.smoothed_usage == pytest.approx(1.1875) and memory.usage_weight == pytest.approx(1.6)
    assert "1.1875" in d.reason and "= 5 executors" in d.reason and not d.recommend_only
    assert memory.last_change is not None and memory.last_change.kind == "up"
    assert (memory.last_change.capacity_before, memory.last_change.capacity_after) == (4.0, 5.0)
    # the same view again: no new batch, nothing read twice, nothing done
    again, same = occupation_rule(view(11, [batch(10, 13_000)], executors(1, 2, 3, 4, 5)), memory, OPTS)
    assert again.action == "keep" and same.smoothed_usage == memory.smoothed_usage and len(same.changes) == 1
    # a second batch of usage 1.3 on 5 executors: num = 1.9·0.6 + 1.3 = 2.44, den = 1.6·0.6 + 1 = 1.96,
    # smoothed 2.44 / 1.96 = 1.2449 → ceil(5 × 1.2449) = ceil(6.22) = 7: two more
    d2, memory = occupation_rule(view(20, [batch(10, 13_000), batch(20, 13_000, batch_id=1)],
                                      executors(1, 2, 3, 4, 5)), memory, OPTS)
    assert d2.action == "up" and len(d2.add) == 2 and d2.utilization == pytest.approx(2.44 / 1.96)
    assert len(memory.changes) == 2  # no cool-down: the next report may act again


def test_occupation_keeps_inside_the_band_bounds_included() -> None:
    d, _ = occupation_rule(view(10, [batch(10, 9_000)], executors(1, 2)), Memory(), OPTS)
    # (0.6 + 0.9) / 1.6 = 0.9375, within [0.75, 1.0]
    assert d.action == "keep" and d.utilization == pytest.approx(0.9375) and "within" in d.reason
    d, _ = occupation_rule(view(10, [batch(10, 10_000)], executors(1, 2)), Memory(), OPTS)
    # (0.6 + 1.0) / 1.6 = 1.0 exactly: the bound is inside (the test is strict: > 1.0)
    assert d.action == "keep" and d.utilization == 1.0


def test_occupation_smooths_every_new_batch_and_decides_once() -> None:
    bs = [batch(10, 13_000), batch(20, 13_000, batch_id=1)]
    d, memory = occupation_rule(view(20, bs, executors(1, 2, 3, 4)), Memory(), OPTS)
    # as above, 2.44 / 1.96 = 1.2449 after both batches: ceil(4 × 1.2449) = ceil(4.98) = 5, one decision
    assert d.action == "up" and len(d.add) == 1 and memory.usage_weight == pytest.approx(1.96)
    assert memory.seen_until_s == 20


def test_occupation_skips_reports_without_input_rows() -> None:
    d, memory = occupation_rule(view(10, [batch(10, 50, rows=0)], executors(1, 2)), Memory(), OPTS)
    # an idle report (no addBatch): read, not smoothed
    assert d.action == "keep" and memory.smoothed_usage is None and memory.seen_until_s == 10


def test_occupation_releases_the_oldest_executors() -> None:
    exe = executors(7, 8, 9, 10, 11, 12)
    d, memory = occupation_rule(view(10, [batch(10, 2_000)], exe), Memory(), OPTS)
    # (0.6 + 0.2) / 1.6 = 0.5 < 0.75 → ceil(6 × 0.5) = 3: three fewer, the lowest ids (numeric, not "10" < "7")
    assert d.action == "down" and d.release == ("7", "8", "9") and d.target_executors == 3
    assert memory.last_change is not None and memory.last_change.capacity_after == 3.0


def test_occupation_clamps_to_min_and_max_whatever_the_side() -> None:
    d, _ = occupation_rule(view(10, [batch(10, 22_000)], executors(*range(1, 9))), Memory(), OPTS)
    # (0.6 + 2.2) / 1.6 = 1.75 → ceil(8 × 1.75) = 14 → min(14, 10) = 10 (the source's default max): two more
    assert OCCUPATION_MAX_EXECUTORS == 10 and d.action == "up" and len(d.add) == 2
    d, _ = occupation_rule(view(10, [batch(10, 22_000)], executors(*range(1, 9))), Memory(),
                           AutoscaleOptions(max_executors=12))
    assert d.target_executors == 12  # min(14, 12)
    d, _ = occupation_rule(view(10, [batch(10, 13_000)], executors(*range(1, 13))), Memory(), OPTS)
    # 12 executors, overloaded: ceil(12 × 1.1875) = ceil(14.25) = 15 → min(15, 10) = 10: cut by two (as the source)
    assert d.action == "down" and d.release == ("1", "2")
    d, _ = occupation_rule(view(10, [batch(10, 2_000)], executors(1)), Memory(), AutoscaleOptions(min_executors=2))
    # one executor, idle: ceil(1 × 0.5) = 1 → max(1, 2) = 2: raised to the min
    assert d.action == "up" and d.target_executors == 2
    d, _ = occupation_rule(view(10, [batch(10, 2_000)], executors(1)), Memory(), OPTS)
    # ceil(1 × 0.5) = 1 = n: outside the band, nothing to change
    assert d.action == "keep" and "as many as run" in d.reason


def test_occupation_waits_while_executors_register_but_still_smooths() -> None:
    d, memory = occupation_rule(view(10, [batch(10, 13_000)], executors(1, 2, 3, 4), pending=1), Memory(), OPTS)
    # 5 needed (as in the first test), the cluster is already scaling: kept, the smoothed 1.1875 remembered
    assert d.action == "keep" and "registering" in d.reason and memory.smoothed_usage == pytest.approx(1.1875)
    assert not memory.changes


def test_occupation_adds_the_cheapest_free_type_and_recommends_where_it_cannot_act() -> None:
    opts = AutoscaleOptions(worker_types={"default": WorkerType(), "cheap": WorkerType(price=0.5)})
    d, _ = occupation_rule(view(10, [batch(10, 22_000)], executors(1, 2), available={"cheap": 1, "default": 5},
                                can_act=False), Memory(), opts)
    # 1.75 → ceil(2 × 1.75) = ceil(3.5) = 4: two more; cheap (0.5 per core) has one free, then default
    assert d.add == ("cheap", "default") and d.recommend_only and d.target_capacity == 4.0


# ---------------------------------------------------------------- DStreams dynamic allocation

def busy(durations_ms: list[int], start: float = 10.0) -> list[Batch]:
    """One batch every 10 s from ``start``."""
    return [batch(start + 10 * i, ms, batch_id=i) for i, ms in enumerate(durations_ms)]


def test_dstreams_checks_every_sixty_seconds_over_the_batches_since_the_last() -> None:
    exe = executors(1, 2, 3, 4)
    d, memory = dstreams_rule(view(5, [], exe), Memory(), OPTS)
    # the timer starts at 5 s: it fires on the next multiple of 60 s
    assert d.action == "keep" and "next check at 60 s" in d.reason and memory.last_check_s == 0
    late, _ = dstreams_rule(view(60, [], exe), Memory(), OPTS)
    assert "next check at 120 s" in late.reason  # started on a multiple: the next one (getStartTime's + 1)
    bs = busy([18_000] * 6 + [1_000])  # batches ending at 10 … 60 s, then one at 70 s
    d, _ = dstreams_rule(view(59, bs[:5], exe), memory, OPTS)
    assert d.action == "keep"
    d, memory = dstreams_rule(view(71, bs, exe), memory, OPTS)
    # the check due at 60 s: the six batches that ended by then average 18,000 ms → ratio 1.8 ≥ 0.9,
    # round(1.8) = 2 more: a total of 4 + 2 = 6 (the 70 s batch waits for the next check)
    assert d.action == "up" and d.rule == "dstreams" and d.add == ("default", "default")
    assert d.utilization == pytest.approx(1.8) and d.target_executors == 6 and "ratio 1.8000" in d.reason
    assert memory.last_check_s == 60 and memory.seen_until_s == 60
    assert memory.last_change is not None and memory.last_change.capacity_after == 6.0
    d, memory = dstreams_rule(view(119, bs, executors(*range(1, 7))), memory, OPTS)
    assert d.action == "keep" and "next check at 120 s" in d.reason
    d, memory = dstreams_rule(view(121, bs, executors(*range(1, 7))), memory, OPTS)
    # only the 70 s batch: 1,000 ms → ratio 0.1 ≤ 0.3: one fewer, the newest (id 6)
    assert d.action == "down" and d.release == ("6",) and d.utilization == pytest.approx(0.1)
    d, memory = dstreams_rule(view(181, bs, executors(*range(1, 6))), memory, OPTS)
    assert d.action == "keep" and "no batch completed" in d.reason and memory.last_check_s == 180


def test_dstreams_ratio_is_a_truncated_average_rounded_half_up() -> None:
    exe = executors(1, 2)
    d, _ = dstreams_rule(view(60, busy([9_000, 9_001]), exe), STARTED, OPTS)
    # (9,000 + 9,001) // 2 = 9,000 ms (Long division) → 9,000 / 10,000 = 0.9 ≥ 0.9: max(round(0.9), 1) = 1 more
    assert d.action == "up" and len(d.add) == 1 and d.utilization == 0.9
    d, _ = dstreams_rule(view(60, busy([8_999, 9_000]), exe), STARTED, OPTS)
    # 17,999 // 2 = 8,999 → 0.8999 < 0.9: between the ratios, kept
    assert d.action == "keep" and "between" in d.reason
    d, _ = dstreams_rule(view(60, busy([25_000]), exe), STARTED, OPTS)
    # 25,000 / 10,000 = 2.5: Scala's round is half up → 3 more, a total of 2 + 3 = 5 (Python's round says 2)
    assert len(d.add) == 3 and d.target_executors == 5


def test_dstreams_bounds() -> None:
    up = busy([18_000])  # ratio 1.8: two more
    d, _ = dstreams_rule(view(60, up, executors(1, 2, 3, 4)), STARTED, AutoscaleOptions(max_executors=5))
    assert d.target_executors == 5  # min(5, 4 + 2)
    d, _ = dstreams_rule(view(60, up, executors(*range(1, 7))), STARTED, AutoscaleOptions(max_executors=5))
    # max(min(5, 8), 1) = 5 ≤ 6 running: a lower total kills nothing, kept
    assert d.action == "keep" and "maxExecutors 5" in d.reason
    d, _ = dstreams_rule(view(60, busy([9_500]), executors(1, 2, 3, 4)), STARTED, AutoscaleOptions(min_executors=8))
    # ratio 0.95: max(round(0.95), 1) = 1 more → max(min(∞, 5), 8) = 8: four more
    assert d.target_executors == 8 and len(d.add) == 4
    idle = busy([2_000])  # ratio 0.2
    d, _ = dstreams_rule(view(60, idle, executors(9, 10)), STARTED, OPTS)
    assert d.action == "down" and d.release == ("10",)  # the newest: 10, not "9" (numeric ids)
    d, _ = dstreams_rule(view(60, idle, executors(1)), STARTED, OPTS)
    assert d.action == "keep" and "minExecutors 1" in d.reason  # 1 executor is not above the min 1
    d, _ = dstreams_rule(view(60, idle, executors(1, 2, 3)), STARTED, AutoscaleOptions(min_executors=3))
    assert d.action == "keep"


def test_dstreams_keeps_while_executors_register_and_consumes_the_check() -> None:
    bs = busy([18_000] * 6)
    d, memory = dstreams_rule(view(60, bs, executors(1, 2), pending=2), STARTED, OPTS)
    assert d.action == "keep" and "registering" in d.reason and memory.last_check_s == 60 and not memory.changes
    d, _ = dstreams_rule(view(61, bs, executors(1, 2, 3, 4)), memory, OPTS)
    assert d.action == "keep" and "next check at 120 s" in d.reason


def test_dstreams_calls_further_apart_than_the_interval_make_one_check() -> None:
    _, memory = dstreams_rule(view(0, [], executors(1, 2)), Memory(), OPTS)
    d, memory = dstreams_rule(view(185, busy([1_000] * 18), executors(1, 2)), memory, OPTS)
    # due at 60, 120 and 180 s: one check at 180 s over the 18 batches ending 10 … 180 s, ratio 0.1: one fewer
    assert memory.last_check_s == 180 and d.action == "down" and d.release == ("2",)


# ---------------------------------------------------------------- the policies

def test_the_policies_share_decides_signature() -> None:
    assert {"streamplace": decide, "occupation": occupation_rule, "dstreams": dstreams_rule} == POLICIES
    expected = list(inspect.signature(decide).parameters)
    for policy in POLICIES.values():
        assert list(inspect.signature(policy).parameters) == expected
    for name in ("occupation", "dstreams"):
        d, memory = POLICIES[name](view(60, busy([13_000] * 6), executors(1, 2)), STARTED, OPTS)
        assert d.rule == name and isinstance(memory, Memory)
