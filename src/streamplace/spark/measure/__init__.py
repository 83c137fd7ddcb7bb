"""Measurements on Spark: operator profiles (profiler.py), the engine model's constants (calibration.py), sweeps
run as Spark tasks (sweep.py) and a plan's brief check on this machine (check.py). Uses the query builder, the
drivers and the cluster manager.

The face (this module's names, loaded on first use: _face.py) is what `profile`, `calibrate`, `sweep`, the demo's
check and an instance's calibrated constants use: reading a calibration must not import PySpark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.spark._face import names_on_first_use

if TYPE_CHECKING:
    from streamplace.spark.measure.calibration import (
        calibrate as calibrate,
    )
    from streamplace.spark.measure.calibration import (
        constants_or_defaults as constants_or_defaults,
    )
    from streamplace.spark.measure.calibration import (
        default_path as default_path,
    )
    from streamplace.spark.measure.calibration import (
        measured_block as measured_block,
    )
    from streamplace.spark.measure.calibration import (
        write_calibration as write_calibration,
    )
    from streamplace.spark.measure.check import (
        check_plan as check_plan,
    )
    from streamplace.spark.measure.check import (
        comparison_rows as comparison_rows,
    )
    from streamplace.spark.measure.profiler import (
        profile_document as profile_document,
    )
    from streamplace.spark.measure.profiler import (
        profile_topology as profile_topology,
    )
    from streamplace.spark.measure.sweep import (
        run_sweep as run_sweep,
    )

WHERE = {
    "streamplace.spark.measure.calibration": ("calibrate", "constants_or_defaults", "default_path", "measured_block",
                                              "write_calibration"),
    "streamplace.spark.measure.check": ("check_plan", "comparison_rows"),
    "streamplace.spark.measure.profiler": ("profile_document", "profile_topology"),
    "streamplace.spark.measure.sweep": ("run_sweep",),
}
__all__ = [name for names in WHERE.values() for name in names]  # what the face gives: WHERE's names
__getattr__ = names_on_first_use(__name__, WHERE)
