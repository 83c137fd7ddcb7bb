"""Planning needs no Spark: without the ``spark`` extra (PySpark, pyarrow) plan/compare/simulate work, and the
commands that run Spark say how to get it instead of a traceback."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: runs the CLI in a fresh interpreter where the spark extra's modules cannot be imported, as in a plain install
WITHOUT_SPARK = """
import importlib.abc, sys
class NoSparkExtra(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("pyspark", "py4j", "pyarrow"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, NoSparkExtra())
from streamplace.cli import main
sys.argv = ["streamplace", *sys.argv[1:]]
main()
"""


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_SPARK, *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_the_core_install_has_no_spark_and_the_spark_extra_has_it() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(meta["dependencies"])
    assert "pyspark" not in core and "pyarrow" not in core
    spark = " ".join(meta["optional-dependencies"]["spark"])
    assert "pyspark" in spark and "pyarrow" in spark
    assert "streamplace[spark]" in meta["optional-dependencies"]["dev"]  # make setup / make test get everything


def test_plan_compare_and_simulate_work_without_spark_and_run_says_how_to_get_it(tmp_path: Path) -> None:
    planned = _cli("plan", "nasiri-linear", "hetero-3", "-s", "hetero", "--out", "p.json", "--picture", "p.svg",
                   cwd=tmp_path)
    assert planned.returncode == 0, planned.stderr
    assert (tmp_path / "p.json").exists() and (tmp_path / "p.svg").read_text().lstrip().startswith("<?xml")
    compared = _cli("compare", "nasiri-linear", "hetero-3", "-s", "r-storm,hetero", "--html", "c.html",
                    cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    simulated = _cli("simulate", "nasiri-linear", "--minutes", "20", cwd=tmp_path)
    assert simulated.returncode == 0, simulated.stderr
    for command in (["run", "nasiri-linear", "hetero-3", "--duration", "5"], ["live", "nasiri-linear", "hetero-3"],
                    ["cluster", "up", "hetero-3"], ["calibrate"]):
        res = _cli(*command, cwd=tmp_path)
        assert res.returncode == 2, (command, res.stderr)
        assert "pip install 'streamplace[spark]'" in res.stderr.replace("\n", " ") and "Traceback" not in res.stderr


def test_only_an_absent_package_of_the_extra_is_called_missing() -> None:
    from streamplace.cli._common import _missing_extra

    assert _missing_extra(ModuleNotFoundError("No module named 'pyspark'", name="pyspark")) == "pyspark"
    assert _missing_extra(ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")) \
        == "pyarrow"
    # installed but broken or too old: not "install the extra", the error is shown as it is
    assert _missing_extra(ImportError("cannot import name 'X' from 'pyspark.sql'", name="pyspark.sql")) is None
    assert _missing_extra(ImportError("Pandas requires version '15.0' or newer of 'pyarrow'")) is None
    assert _missing_extra(ModuleNotFoundError("No module named 'yaml'", name="yaml")) is None
