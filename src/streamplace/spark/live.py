"""The face for a live loop: a plan kept under an elastic policy while it runs (runtime/live.py), and the one
fault the sources themselves take, a stall (query/bounded_source.py).

What `live` uses (workflows/live.py), beside enact.py's configuration and events.py's listeners. Names load on
first use (_face.py): the loop imports PySpark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.spark._face import names_on_first_use

if TYPE_CHECKING:
    from streamplace.spark.query.bounded_source import (
        ORIGIN_FILE as ORIGIN_FILE,
    )
    from streamplace.spark.query.bounded_source import (
        stall as stall,
    )
    from streamplace.spark.runtime.live import (
        LiveRun as LiveRun,
    )

WHERE = {
    "streamplace.spark.query.bounded_source": ("ORIGIN_FILE", "stall"),
    "streamplace.spark.runtime.live": ("LiveRun",),
}
__all__ = [name for names in WHERE.values() for name in names]  # what the face gives: WHERE's names
__getattr__ = names_on_first_use(__name__, WHERE)
