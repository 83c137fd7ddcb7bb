"""The cluster manager: a Spark standalone cluster that emulates a cluster spec on this machine (or spans hosts).

The face (this module's names, loaded on first use: _face.py) is what the workflows use — start, stop, read and
repair a cluster (standalone.py), its state and the placement's hosts (state.py), a session connected to it
(connect.py), the JVMs' options (jvm_options.py) and the faults a run can inject (faults.py). Behind it: per-node
CPU quotas (cpu_quota.py), the JVMs' class archives (jvm_archive.py) and the nodes' Python workers forked
ready-made (zygote.py; the executors' side is daemons/: worker_daemon.py and zygote_client.py). Uses the query
builder, the daemons and the drivers, never the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.spark._face import names_on_first_use

if TYPE_CHECKING:
    from streamplace.spark.cluster.connect import (
        session_for as session_for,
    )
    from streamplace.spark.cluster.faults import (
        freeze_node as freeze_node,
    )
    from streamplace.spark.cluster.faults import (
        kill_executors as kill_executors,
    )
    from streamplace.spark.cluster.faults import (
        restore_node as restore_node,
    )
    from streamplace.spark.cluster.faults import (
        slow_node as slow_node,
    )
    from streamplace.spark.cluster.faults import (
        thaw_node as thaw_node,
    )
    from streamplace.spark.cluster.jvm_options import (
        driver_options as driver_options,
    )
    from streamplace.spark.cluster.jvm_options import (
        executor_options as executor_options,
    )
    from streamplace.spark.cluster.standalone import (
        down as down,
    )
    from streamplace.spark.cluster.standalone import (
        emulated_links as emulated_links,
    )
    from streamplace.spark.cluster.standalone import (
        kill_worker as kill_worker,
    )
    from streamplace.spark.cluster.standalone import (
        render_worker_config as render_worker_config,
    )
    from streamplace.spark.cluster.standalone import (
        status as status,
    )
    from streamplace.spark.cluster.standalone import (
        up as up,
    )
    from streamplace.spark.cluster.standalone import (
        worker_config as worker_config,
    )
    from streamplace.spark.cluster.state import (
        ClusterState as ClusterState,
    )
    from streamplace.spark.cluster.state import (
        alive_nodes as alive_nodes,
    )
    from streamplace.spark.cluster.state import (
        find_state as find_state,
    )
    from streamplace.spark.cluster.state import (
        lift_cpu_quotas as lift_cpu_quotas,
    )
    from streamplace.spark.cluster.state import (
        placement_hosts as placement_hosts,
    )
    from streamplace.spark.cluster.state import (
        require_registered as require_registered,
    )
    from streamplace.spark.cluster.state import (
        state_at as state_at,
    )
    from streamplace.spark.cluster.state import (
        state_root as state_root,
    )

WHERE = {
    "streamplace.spark.cluster.connect": ("session_for",),
    "streamplace.spark.cluster.faults": ("freeze_node", "kill_executors", "restore_node", "slow_node", "thaw_node"),
    "streamplace.spark.cluster.jvm_options": ("driver_options", "executor_options"),
    "streamplace.spark.cluster.standalone": ("down", "emulated_links", "kill_worker", "render_worker_config",
                                             "status", "up", "worker_config"),
    "streamplace.spark.cluster.state": ("ClusterState", "alive_nodes", "find_state", "lift_cpu_quotas",
                                        "placement_hosts", "require_registered", "state_at", "state_root"),
}
__all__ = [name for names in WHERE.values() for name in names]  # what the face gives: WHERE's names
__getattr__ = names_on_first_use(__name__, WHERE)
