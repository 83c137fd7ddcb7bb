"""The autoscaler's Spark edges: a listener that hands a query's progress to the controller's thread
(listener.py), the driver's executor allocation client (executors.py) and the stages' task times (stages.py). The
decision is autoscaler/'s; the loop that ties them together is workflows/autoscale.py.

The face (this module's names, loaded on first use: _face.py) is what that loop uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.spark._face import names_on_first_use

if TYPE_CHECKING:
    from streamplace.spark.autoscale.executors import (
        AllocationRefused as AllocationRefused,
    )
    from streamplace.spark.autoscale.executors import (
        ExecutorClient as ExecutorClient,
    )
    from streamplace.spark.autoscale.executors import (
        allocation_mode as allocation_mode,
    )
    from streamplace.spark.autoscale.executors import (
        on_a_cluster as on_a_cluster,
    )
    from streamplace.spark.autoscale.listener import (
        progress_listener as progress_listener,
    )
    from streamplace.spark.autoscale.listener import (
        session_of as session_of,
    )
    from streamplace.spark.autoscale.listener import (
        trigger_interval_s as trigger_interval_s,
    )
    from streamplace.spark.autoscale.stages import (
        stage_reader as stage_reader,
    )

WHERE = {
    "streamplace.spark.autoscale.executors": ("AllocationRefused", "ExecutorClient", "allocation_mode", "on_a_cluster"),
    "streamplace.spark.autoscale.listener": ("progress_listener", "session_of", "trigger_interval_s"),
    "streamplace.spark.autoscale.stages": ("stage_reader",),
}
__all__ = [name for names in WHERE.values() for name in names]  # what the face gives: WHERE's names
__getattr__ = names_on_first_use(__name__, WHERE)
