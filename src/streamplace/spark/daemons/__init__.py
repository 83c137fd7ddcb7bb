"""The executors' Python side: the worker daemon Spark forks its Python workers from (worker_daemon.py), with an
operator's imports done once and no thread started (threadless.py), and its client of a node's zygote
(zygote_client.py; the zygote itself is the cluster manager's, spark/cluster/zygote.py). Uses only the query
builder, so that the module Spark is configured with loads nothing of the drivers or the cluster manager.
"""
