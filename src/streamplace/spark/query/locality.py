"""The JVM side of placed stages: a jar with ``streamplace.LocatedRDD``, compiled from its source here.

PySpark cannot give an RDD's partitions preferred locations, and a ResourceProfile pins a whole stage to one
node, so placing an operator's replicas on several nodes took one stage per node (and an exchange per upstream
part and node: fixed cost growing with nodes²). ``LocatedRDD`` (jvm/LocatedRDD.java) is a partition-for-partition
wrapper whose ``getPreferredLocations`` returns the host each replica is planned on; with a locality wait that
does not run out while that host's executor lives, TaskSetManager runs partition i's task there. One stage per
operator (or fused chain) then carries every node's replicas.

The jar is built with ``javac`` (a JDK: Debian's ``openjdk-17-jdk-headless``, which ``make setup`` installs)
against PySpark's own jars, once per source and PySpark version, into ``$STREAMPLACE_HOME/jars`` (else
``~/.streamplace/jars``); ``make setup`` builds it, and the first placed run builds it when it is missing.

The Python side is here too: the locality waits a placed run sets (``LOCALITY_CONF``), the preferred hosts as the
JVM takes them (``java_locations``), a DataFrame cut into a LocatedRDD (``locate``), and the hosts of the live
executors (``executor_hosts``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.errors import StreamplaceError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SOURCE = "LocatedRDD.java"
#: every source the jar holds: LocatedRDD, and the chain templates a placed batch instantiates (ChainTemplate.java)
SOURCES = (SOURCE, "ChainTemplate.java")
CLASS = "streamplace.LocatedRDD"


class LocalityJarError(StreamplaceError, RuntimeError):
    """The locality jar could not be built (no JDK, or javac failed)."""


def _source(name: str = SOURCE) -> bytes:
    return resources.files("streamplace.spark.query").joinpath("jvm", name).read_bytes()


def _pyspark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def jar_path() -> Path:
    """Where the jar for this source and this PySpark lives (built or not)."""
    import pyspark

    digest = hashlib.sha256(b"".join(_source(n) for n in SOURCES) + pyspark.__version__.encode()).hexdigest()[:16]
    home = Path(os.environ.get("STREAMPLACE_HOME") or Path.home() / ".streamplace")
    return home / "jars" / f"streamplace-locality-{digest}.jar"


def javac() -> str | None:
    """The Java compiler: $JAVA_HOME/bin/javac, else the one on PATH (None: no JDK)."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "javac").exists():
        return str(Path(home) / "bin" / "javac")
    return shutil.which("javac")


def locality_jar() -> Path:
    """The jar, built now if this source and PySpark have none yet (about 2 s). Written to a temporary name and
    renamed, so a concurrent build or an interrupted one never leaves half a jar."""
    path = jar_path()
    if path.exists():
        return path
    compiler = javac()
    if compiler is None:
        raise LocalityJarError("placing replicas on a standalone cluster needs a Java compiler (javac) to build "
                               f"{SOURCE} once (fix: install a JDK 17, e.g. `apt-get install "
                               "openjdk-17-jdk-headless`, or run `make setup`)")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="streamplace-javac-") as tmp:
        srcs = [Path(tmp) / name for name in SOURCES]
        for src in srcs:
            src.write_bytes(_source(src.name))
        classes = Path(tmp) / "classes"
        classes.mkdir()
        done = subprocess.run([compiler, "-nowarn", "--release", "17", "-cp", f"{_pyspark_jars()}/*",
                               "-d", str(classes), *map(str, srcs)], capture_output=True, text=True)
        if done.returncode != 0:
            raise LocalityJarError(f"javac could not build {', '.join(SOURCES)}: {done.stderr.strip()[-2000:]}")
        part = path.with_suffix(f".{os.getpid()}.part")
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: streamplace\n")
            for f in sorted(classes.rglob("*.class")):
                jar.write(f, f.relative_to(classes).as_posix())
        part.replace(path)
    return path


def main() -> None:
    """`python -m streamplace.spark.query.locality`: build the jar (make setup) and print where it is."""
    print(locality_jar())


#: how long a placed task waits for its planned node's executor to take it (TaskSetManager's locality wait, at the
#: node and process levels): long enough that it never runs elsewhere while that executor lives and the batches
#: run (a micro-batch's tasks wait for the busy executor of their node: seconds), short of a hang when a node is
#: gone and no re-plan came (live.py re-plans on a lost node within seconds)
PLACED_LOCALITY_WAIT = "300s"


#: the locality settings that make a stage's tasks wait for the nodes their partitions prefer (placement "plan"),
#: and Spark's own defaults (placement "spark": what every Spark user gets); Pipeline.start sets one of them on the
#: running context (TaskSetManager reads them from it whenever a stage's task set is made)
LOCALITY_CONF = {"plan": {"spark.locality.wait.node": PLACED_LOCALITY_WAIT,
                          "spark.locality.wait.process": PLACED_LOCALITY_WAIT},
                 "spark": {"spark.locality.wait.node": "3s", "spark.locality.wait.process": "3s"}}


def java_locations(spark: SparkSession, hosts: list[str]) -> Any:
    """The JVM ``String[][]`` LocatedRDD takes: partition i preferring ``hosts[i]``. O(partitions) Py4J calls."""
    jvm, gateway = spark.sparkContext._jvm, spark.sparkContext._gateway
    assert jvm is not None and gateway is not None, "the SparkContext has no JVM (stopped?)"
    rows = gateway.new_array(jvm.String, len(hosts), 0)
    for i, host in enumerate(hosts):
        row = gateway.new_array(jvm.String, 1)
        row[0] = host
        rows[i] = row
    return rows


def locate(frame: DataFrame, locations: Any) -> DataFrame:
    """``frame``'s rows in its own partitions, partition i preferring ``locations[i]`` (java_locations): a
    LocatedRDD (locality.py) under a new DataFrame. Spark plans ``frame`` here and the new DataFrame's plan starts
    from its RDD, so what is built on it stays short. One Py4J call."""
    from pyspark.sql import DataFrame

    jvm = frame.sparkSession.sparkContext._jvm
    assert jvm is not None, "the SparkContext has no JVM (stopped?)"
    return DataFrame(jvm.streamplace.LocatedRDD.locate(frame._jdf, locations), frame.sparkSession)


def executor_hosts(spark: SparkSession) -> set[str]:
    """The hosts of the application's live executors (the driver left out), from Spark's status store."""
    live = spark.sparkContext._jsc.sc().statusStore().executorList(True)
    out = set()
    for i in range(live.size()):
        e = live.apply(i)
        if str(e.id()) != "driver":
            out.add(str(e.hostPort()).rsplit(":", 1)[0])
    return out


def set_locality(spark: SparkSession, placement: str) -> None:
    """The locality waits of ``placement`` (LOCALITY_CONF above) on the running context: TaskSetManager reads
    them from its SparkConf whenever a stage's task set is made, so a run (and a re-plan) sets its own."""
    conf = spark.sparkContext._jsc.sc().conf()
    for key, value in LOCALITY_CONF[placement].items():
        conf.set(key, value)


if __name__ == "__main__":
    main()
