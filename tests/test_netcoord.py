"""Network coordinates: spring relaxation (Ecker et al. 2025) and Vivaldi on synthetic latencies."""

from __future__ import annotations

import numpy as np
import pytest

from streamplace.netcoord import estimate
from streamplace.netcoord.estimate import median_relative_error
from streamplace.netcoord.spring import SpringParams, relax
from streamplace.netcoord.synthetic import continuum, measure


def euclidean(n: int = 12, seed: int = 0) -> np.ndarray:
    pts = np.random.default_rng(seed).uniform(0, 50, size=(n, 3))
    lat = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    return lat


def test_relax_moves_towards_the_measured_distance() -> None:
    peer = np.array([[10.0, 0.0, 0.0]])
    near = relax(np.array([9.0, 0.0, 0.0]), peer, np.array([5.0]), SpringParams())
    far = relax(np.array([-20.0, 0.0, 0.0]), peer, np.array([5.0]), SpringParams())
    assert abs(np.linalg.norm(near - peer[0]) - 5.0) < 0.1  # pushed out to 5
    assert abs(np.linalg.norm(far - peer[0]) - 5.0) < 0.1  # pulled in to 5


@pytest.mark.parametrize("method", ["spring", "vivaldi"])
def test_recovers_a_true_3d_metric(method: str) -> None:
    true = euclidean()
    est = estimate(true, method, seed=1).latency()
    assert median_relative_error(est, true) < 0.05


@pytest.mark.parametrize("method", ["spring", "vivaldi"])
def test_fills_missing_pairs_on_a_noisy_continuum(method: str) -> None:
    c = continuum()
    measured = measure(c.latency, jitter=0.1, missing=0.3)
    est = estimate(measured, method, seed=3).latency()
    missing = np.isnan(measured)
    assert missing.any() and np.isfinite(est).all()
    assert median_relative_error(est, c.latency) < 0.2
    rel = np.abs(est[missing] - c.latency[missing]) / c.latency[missing]
    assert np.median(rel) < 0.3  # pairs never measured are estimated too


def test_same_seed_same_coordinates() -> None:
    m = measure(continuum().latency)
    a = estimate(m, "spring", seed=5).positions
    b = estimate(m, "spring", seed=5).positions
    assert np.array_equal(a, b)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="square"):
        estimate(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="unknown method"):
        estimate(np.zeros((3, 3)), "gps")  # type: ignore[arg-type]
