"""A Spark application on a cluster `cluster up` started: its configuration and the driver's session.

``app_conf`` is what an application needs to run placed stages there (authentication, one executor per worker
with all its cores, the JVM options and class archives, the locality jar and waits); ``session_for`` is the
session a command runs on, on that cluster or local.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.model.layout import EXECUTOR_MEMORY_MB
from streamplace.spark.cluster.jvm_options import driver_options, executor_options
from streamplace.spark.cluster.state import EXECUTOR_JVM_OPTIONS, ClusterState, local_address
from streamplace.spark.query.locality import LOCALITY_CONF, locality_jar
from streamplace.spark.runtime.session import local_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def app_conf(state: ClusterState, secret: str | None = None) -> dict[str, str]:
    """What an application needs to run placed stages on the cluster (authentication included): one executor on
    every worker, with all of the worker's cores, for the application's life (no dynamic allocation: a stage of
    any operator runs its replicas' tasks on the executors of their nodes, located by task locality, LocatedRDD)."""
    return {
        "spark.authenticate": "true",
        "spark.authenticate.secret": secret if secret is not None else state.secret,
        # the driver's address the executors reach: the master's own on one machine, this host's towards it else
        "spark.driver.host": (driver := local_address(state.host, state.port)), "spark.driver.bindAddress": driver,
        # spark.executor.cores unset: a standalone worker gives the application one executor with all its cores
        # (the node's replica slots and one more for the source's read), started when the application starts
        "spark.dynamicAllocation.enabled": "false",
        "spark.executor.memory": f"{EXECUTOR_MEMORY_MB}m",
        # the client compiler only and one GC thread: a fresh executor JVM compiled and collected for 2–3 minutes
        # under a node's CPU quota of a third of a core (batches 13.7 → 7.0 s); with these its executors started
        # in 50 s instead of 72 and its batches settled at 6.3–6.9 s within a minute (hetero-3, nasiri-linear)
        "spark.executor.extraJavaOptions": " ".join(x for x in (EXECUTOR_JVM_OPTIONS, executor_options(state)) if x),
        # LocatedRDD: the driver and every executor load it (the executors fetch it from the driver)
        "spark.jars": str(locality_jar()),
        **LOCALITY_CONF["plan"],
    }


def session_for(master: str | None, state: Any, cores: int | None, log_to: Path | None = None,
                console_level: str | None = None) -> SparkSession:
    """The session a command runs on: a standalone cluster that ``cluster up`` started (``state``: its
    authentication and pinning configuration), else ``master`` or ``local[cores]``."""
    if state is not None:
        conf = app_conf(state)
        if archive := driver_options(state):  # the classes a driver loads, mapped from `cluster up`'s archive
            conf["spark.driver.extraJavaOptions"] = archive
        return local_session(master=master, conf=conf, log_to=log_to, console_level=console_level)
    return local_session(cores, master=master, log_to=log_to, console_level=console_level)
