"""The executor allocation client's release (spark/autoscale/executors.py) against a stand-in for PySpark's gateway:
what it asks the cluster manager for while a released executor is still listed by Spark."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from streamplace.spark.autoscale.executors import ExecutorClient


class _Seq:
    """A Scala Seq as Py4J shows it."""

    def __init__(self, items: list[Any]):
        self.items = items

    def size(self) -> int:
        return len(self.items)

    def apply(self, i: int) -> Any:
        return self.items[i]


class _List(list):  # java.util.ArrayList's add
    def add(self, item: Any) -> None:
        self.append(item)


def _executor(i: str) -> Any:
    return SimpleNamespace(id=lambda: i, hostPort=lambda: f"127.0.0.{i}:4000", totalCores=lambda: 1,
                           addTime=lambda: SimpleNamespace(getTime=lambda: 1000 * int(i)))


class _Driver:
    """The driver's SparkContext: the status store's live executors, the totals asked for and the kills."""

    def __init__(self, ids: list[str]):
        self.listed = ["driver", *ids]
        self.totals: list[int] = []
        self.killed: list[list[str]] = []

    def statusStore(self) -> _Driver:  # Spark's names
        return self

    def executorList(self, active_only: bool) -> _Seq:
        return _Seq([_executor(i) for i in self.listed])

    def requestTotalExecutors(self, total: int, locality: int, hosts: Any) -> bool:
        self.totals.append(total)
        return True

    def killExecutors(self, ids: list[str]) -> bool:
        self.killed.append(list(ids))
        return True


def _client(driver: _Driver) -> ExecutorClient:
    utils = SimpleNamespace(toSeq=list, toScalaMap=lambda m: m)
    jvm = SimpleNamespace(org=SimpleNamespace(apache=SimpleNamespace(spark=SimpleNamespace(api=SimpleNamespace(
        python=SimpleNamespace(PythonUtils=utils))))), java=SimpleNamespace(util=SimpleNamespace(
            ArrayList=_List, HashMap=dict)))
    sc = SimpleNamespace(_jsc=SimpleNamespace(sc=lambda: driver), _jvm=jvm)
    return ExecutorClient(SimpleNamespace(sparkContext=sc))  # type: ignore[arg-type]


def test_a_released_executor_still_listed_is_neither_counted_nor_released_again() -> None:
    """Measured on the emulated cluster before the fix: 4 executors, two released; the next batch still listed one
    of them, the decision released it again and the total was set to 3 where 2 would run — the master started a
    replacement, and the query ended on 2 executors where the autoscaler had asked for 1."""
    driver = _Driver(["0", "1", "2", "3"])
    client = _client(driver)
    assert client.release(["3", "2"])
    assert driver.totals == [4] and driver.killed == [["3", "2"]] and client.target == 2
    driver.listed = ["driver", "0", "1", "3"]  # 2 gone, 3 not yet
    assert [e.id for e in client.live()] == ["0", "1"]
    assert not client.release(["3"])  # already going: not asked again, and the total is what runs
    assert driver.totals == [4, 2] and driver.killed == [["3", "2"]] and client.target == 2
    assert client.release(["0"])
    assert driver.totals == [4, 2, 2] and driver.killed[-1] == ["0"] and client.target == 1
    driver.listed = ["driver", "1"]
    assert [e.id for e in client.live()] == ["1"] and client.leaving == set()
