"""Write a simulation's per-minute time series to CSV or Parquet (chosen by the file suffix)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from streamplace.errors import Problem, SpecError


def write_series(series: dict[str, np.ndarray], path: str | Path) -> Path:
    """One row per simulated minute, one column per series; ``.parquet`` needs pyarrow, anything else is CSV."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(series)
    if path.suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise SpecError([Problem("--series", "writing Parquet needs pyarrow, which is not installed",
                                     "pip install pyarrow, or give a .csv path")], str(path)) from None
        pq.write_table(pa.table({c: np.asarray(series[c]) for c in columns}), path)
        return path
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        for row in zip(*(np.asarray(series[c]).tolist() for c in columns), strict=True):
            w.writerow(row)
    return path
