"""Accuracy of network coordinates on a synthetic compute continuum: spring relaxation vs Vivaldi.

24 nodes (4 edge sites × 4 devices, 4 metro servers, 4 cloud servers; see netcoord/synthetic.py),
measurements with log-normal jitter and missing pairs; median relative error over all pairs (measured
and missing) of the estimated one-way latency, over ``--seeds`` seeds (3).

Run: .venv/bin/python benchmarks/netcoord_accuracy.py [--seeds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from streamplace.netcoord.estimate import estimate, median_relative_error
from streamplace.netcoord.synthetic import continuum, measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    column = f"median rel. error ({args.seeds} seed{'s' if args.seeds != 1 else ''})"
    print(f"{'jitter':>6s} {'missing':>7s} {'method':8s} {column:>28s} {'time (s)':>8s}")
    for jitter, missing in ((0.0, 0.0), (0.1, 0.3), (0.2, 0.5)):
        for method in ("spring", "vivaldi"):
            errors, times = [], []
            for seed in range(args.seeds):
                c = continuum(seed=seed + 1)
                m = measure(c.latency, jitter=jitter, missing=missing, seed=seed + 10)
                start = time.perf_counter()
                est = estimate(m, method, seed=seed).latency()
                times.append(time.perf_counter() - start)
                errors.append(median_relative_error(est, c.latency))
            print(f"{jitter:6.1f} {missing:7.0%} {method:8s} "
                  f"{statistics.median(errors):10.3f} ({', '.join(f'{e:.3f}' for e in errors)}) "
                  f"{statistics.median(times):8.2f}")


if __name__ == "__main__":
    main()
