"""The cluster manager: a Spark standalone cluster that emulates a cluster spec on this machine (or spans hosts).

Its state (state.py), starting and stopping it (standalone.py), per-node CPU quotas (cpu_quota.py), the JVMs'
class archives (jvm_options.py, jvm_archive.py), the nodes' Python workers forked ready-made (zygote.py; the
executors' side is the runtime's worker_daemon.py and zygote_client.py) and a session connected to it
(connect.py). Uses the runtime, never the reverse.
"""
