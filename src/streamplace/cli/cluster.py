"""`streamplace cluster up/worker-config/down/status`: a Spark standalone cluster emulating a cluster spec on
this machine (or with workers on other hosts)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from streamplace.cli._common import (
    ClusterArg,
    JsonOpt,
    StateOpt,
    cluster_app,
    emit_json,
    err,
    friendly,
    info,
    out,
    progress_bar,
    warn,
)
from streamplace.workflows import cluster as clusters
from streamplace.workflows.instance import load_cluster


@cluster_app.command("up")
@friendly
def cluster_up(
    cluster: ClusterArg,
    state_dir: StateOpt = None,
    host: Annotated[str, typer.Option("--host", help="address to bind (loopback unless you mean otherwise: "
                                      "the master runs code from whoever reaches it and has the secret)")]
    = "127.0.0.1",
    replica_slots: Annotated[int | None, typer.Option("--replica-slots", min=1, help="most replicas of one "
                                                      "operator per worker (default: the node's cores)")] = None,
    cpu_quota: Annotated[bool, typer.Option("--cpu-quota/--no-cpu-quota", help="run each node's processes in a "
                                            "cgroup with a CPU quota of its share of --cpu-budget (where cgroups "
                                            "are writable; otherwise the nodes share the machine)")] = True,
    cpu_budget: Annotated[float | None, typer.Option("--cpu-budget", min=0.01, help="real cores the nodes share "
                                                     "under quotas (default: this machine's less 0.5)")] = None,
    remote: Annotated[str | None, typer.Option("--remote", help="nodes whose workers run on other hosts (comma-"
                                               "separated, or `all`): not started here; start each there from "
                                               "`cluster worker-config`")] = None,
    jvm_archives: Annotated[bool, typer.Option("--jvm-archives/--no-jvm-archives", help="write the class archives "
                                               "that let each run's driver and executors start in less CPU (a short "
                                               "pinned job on the cluster, about a minute; kept across `up`s of the "
                                               "same state directory while they still fit the JDK and Spark)")]
    = True,
    as_json: JsonOpt = False,
) -> None:
    """Start a Spark standalone master and one worker per node of CLUSTER; print the master URL.

    Example: streamplace cluster up hetero-3
    """
    c = load_cluster(cluster)
    with progress_bar("starting {task.description}", "", disable=as_json or not err.is_terminal) as bar:
        bar.add_task(f"{len(c.nodes) - len(clusters.remote_nodes(c, remote))} workers for {c.name}", total=None)
        started = clusters.start(c, state_dir, host, replica_slots, cpu_quota=cpu_quota, cpu_budget=cpu_budget,
                                 remote=remote, jvm_archives=jvm_archives)
    state, far = started.state, started.remote
    if as_json:
        emit_json({"master_url": state.master_url, "state_dir": state.state_dir,
                   "workers": [w.node for w in state.workers], "remote": far, "cpu_scale": state.cpu_scale,
                   "cpu_quota_cores": {w.node: w.cpu_quota_cores for w in state.workers},
                   "cpu_quota_note": state.cpu_quota_note or None, "jvm_archives": state.jvm_archive_note or None})
        return
    info(f"cluster {c.name}: {len(state.workers) - len(far)} workers here, state in {state.state_dir}", stderr=True)
    if far:
        info(f"{len(far)} worker(s) to start on their hosts: {', '.join(far)} — for each, `streamplace cluster "
             f"worker-config {c.name} NODE --state-dir {state.state_dir}` prints the recipe; `cluster status` "
             "shows when they have registered", stderr=True)
    if state.cpu_scale:
        quotas = ", ".join(f"{w.node} {w.cpu_quota_cores:.2f}" for w in state.workers)
        info(f"CPU quotas (cgroup v{state.cgroup_version}): {state.cpu_budget_cores:g} real cores shared, scale "
             f"{state.cpu_scale:.4g} real cores per spec core (run --master predicts with it); cores per node: "
             f"{quotas}", stderr=True)
    elif state.cpu_quota_note:
        warn(state.cpu_quota_note)
    if state.jvm_archive_note:
        if started.archives_in_use:
            info(state.jvm_archive_note, stderr=True)
        else:  # the cluster works; its runs start slower
            warn(f"{state.jvm_archive_note}: runs on this cluster start their JVMs without them")
    print(state.master_url)


@cluster_app.command("worker-config")
@friendly
def cluster_worker_config(
    cluster: ClusterArg,
    node: Annotated[str, typer.Argument(help="the node of CLUSTER this host serves as")],
    master: Annotated[str | None, typer.Option("--master", help="the master's URL (spark://HOST:PORT), as "
                                               "`cluster up` prints it (default: the cluster started here)")] = None,
    replica_slots: Annotated[int | None, typer.Option("--replica-slots", min=1, help="as given to `cluster up`")]
    = None,
    directory: Annotated[str, typer.Option("--dir", help="where the worker's files go on that host")]
    = "/opt/streamplace-worker",
    include_secret: Annotated[bool, typer.Option("--include-secret", help="put the master's secret (from the "
                                                 "state directory) in the properties instead of naming its file; "
                                                 "keep the output private")] = False,
    state_dir: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print what a real host needs to serve as NODE of CLUSTER: discovery scripts, properties, start command.

    Example: streamplace cluster worker-config hetero-3 core-i5-1 --master spark://10.0.0.5:7077
    """
    doc = clusters.worker_config(cluster, node, master, replica_slots, directory, include_secret, state_dir)
    if as_json:
        emit_json(doc)
        return
    print(clusters.render_worker_config(doc), end="")


#: a cluster `cluster up` started, by name (as it printed it), spec or built-in name; none: the one there is
ClusterNameArg = Annotated[str | None, typer.Argument(help="the cluster's name (as `cluster up` printed it), spec "
                                                        "or built-in name")]


@cluster_app.command("down")
@friendly
def cluster_down(
    cluster: ClusterNameArg = None,
    state_dir: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Stop exactly the master and workers that `cluster up` started (from their pid files).

    Example: streamplace cluster down hetero-3
    """
    stopped = clusters.stop(clusters.state_dir_of(cluster, state_dir))
    if as_json:
        emit_json({"stopped": stopped})
        return
    out.print("stopped: " + (", ".join(stopped) if stopped else "nothing was running"))


@cluster_app.command("status")
@friendly
def cluster_status(
    cluster: ClusterNameArg = None,
    state_dir: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the master, each worker's process and registration, and the running applications.

    Example: streamplace cluster status hetero-3
    """
    st = clusters.status(clusters.state_dir_of(cluster, state_dir))
    if as_json:
        emit_json(st)
        return
    out.print(f"{st['name']}: {st['master_url']} (master {'alive' if st['master_alive'] else 'DOWN'}); "
              f"applications: {', '.join(st['applications']) or 'none'}")
    if st.get("cpu_scale"):
        out.print(f"CPU quotas (cgroup v{st['cgroup_version']}): {st['cpu_budget_cores']:g} real cores shared, "
                  f"scale {st['cpu_scale']:.4g} real cores per spec core", highlight=False)
    elif st.get("cpu_quota_note"):
        out.print(st["cpu_quota_note"], highlight=False)
    if st.get("jvm_archives"):
        out.print(st["jvm_archives"], highlight=False)
    table = Table()
    for col in ("node", "pid", "process", "registered", "cores", "used", "replica slots", "speed-up", "CPU quota",
                "Python zygote"):
        table.add_column(col)
    for w in st["workers"]:
        quota = w.get("cpu_quota_cores")
        process = "remote" if w.get("remote") else "alive" if w["process_alive"] else "dead"
        zygote = {None: "none", True: "alive", False: "dead (daemons import for themselves)"}[w.get("zygote_alive")]
        table.add_row(w["node"], "" if w["pid"] is None else str(w["pid"]), process,
                      "yes" if w["registered"] else "no", str(w["cores"]), str(w["cores_used"] or 0),
                      str(w["replica_slots"]), f"{w['speedup']:g}", "none" if quota is None else f"{quota:.2f} cores",
                      zygote)
    out.print(table)
