"""The last bad inputs of the command line (issue 55): output to a full device is an error (exit 2, the file or
standard output named, nothing half-written), input errors exit 2 — not 1 — and what is valid but suspicious is
a warning on stderr while the command succeeds."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from streamplace.cli import app

runner = CliRunner()
FULL = Path("/dev/full")


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, " ".join(result.stderr.split())


def _full_device() -> None:
    if not (FULL.exists() and stat.S_ISCHR(FULL.stat().st_mode)):
        pytest.skip("no /dev/full character device here")


def test_a_plan_written_to_a_full_device_is_an_error_and_the_device_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--out /dev/full` said "plan written" and exited 0; run as root it renamed a file over the device."""
    _full_device()
    real = os.replace

    def replace(src: object, dst: object) -> None:  # a regression fails here instead of replacing the device
        assert not stat.S_ISCHR(os.stat(dst).st_mode if os.path.exists(str(dst)) else 0), f"{dst} replaced"
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)
    code, _, err = run("plan", "nasiri-linear", "hetero-3", "--engine", "ideal", "--out", str(FULL))
    assert code == 2
    assert "error: /dev/full: No space left on device (fix: free some space there, or write elsewhere" in err
    assert "plan written" not in err
    assert stat.S_ISCHR(FULL.stat().st_mode)  # still the device, not a file renamed over it
    assert not list(FULL.parent.glob(".full.*"))  # no temporary left beside it


@pytest.mark.parametrize("args", [["plan", "nasiri-linear", "hetero-3", "--engine", "ideal", "--json"],
                                  ["plan", "nasiri-linear", "hetero-3", "--engine", "ideal"],
                                  ["bench", "list", "--json"],
                                  ["schedulers"],
                                  # printed before any command runs (typer's eager options): a traceback, exit 1
                                  ["--version"], ["--help"], ["plan", "--help"]])
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_standard_output_on_a_full_device_is_an_error(args: list[str], buffered: bool) -> None:
    """`streamplace … > /dev/full` exited 0 (a JSON plan) or 1 with a traceback (bench list, schedulers, --version,
    --help). Buffered, the write fails only as the output is flushed at the end; unbuffered, as it is printed."""
    _full_device()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | {"COLUMNS": "100"}
    with FULL.open("w") as full:
        done = subprocess.run([sys.executable, "-m", "streamplace", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, env=env if buffered else env | {"PYTHONUNBUFFERED": "1"})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("error: standard output: No space left on device (fix: send the output where "
                                   "there is room — another file or device, or --out FILE where the command has "
                                   "one)"), done.stderr


def test_a_full_disk_leaves_no_half_written_picture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The picture is written whole or not at all, and the error names the file asked for, not a temporary."""
    import errno

    import streamplace.report.placement as placement

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(placement, "write_placement", full)
    picture = tmp_path / "plan.svg"
    code, _, err = run("plan", "nasiri-linear", "hetero-3", "--engine", "ideal", "--picture", str(picture))
    assert code == 2 and f"error: {picture}: No space left on device" in err
    assert list(tmp_path.iterdir()) == []


def test_a_second_source_without_a_path_to_a_sink_is_a_warning(tmp_path: Path) -> None:
    spec = tmp_path / "orphan.yaml"
    spec.write_text(yaml.safe_dump({"name": "orphan", "operators": [
        {"id": "src", "kind": "source", "rate": 100, "cost_ms": 0.1},
        {"id": "src2", "kind": "source", "rate": 50, "cost_ms": 0.1},
        {"id": "work", "cost_ms": 1.0},
        {"id": "out", "kind": "sink", "cost_ms": 0.1}],
        "streams": [{"from": "src", "to": "work"}, {"from": "work", "to": "out"}]}))
    code, out, err = run("plan", str(spec), "hetero-3", "--engine", "ideal", "--json")
    assert code == 0 and json.loads(out)["status"] == "ok"
    assert err == ("warning: orphan: operators[1]: source 'src2' has no stream path to a sink, so the 50 tuples/s "
                   "it offers are planned for but never reach the output (fix: add a stream from it towards a "
                   "sink, or remove it)")


def test_a_parameter_for_a_scheduler_not_compared_is_a_warning() -> None:
    code, out, err = run("compare", "nasiri-linear", "hetero-3", "-s", "ffd", "-p", "ds2.placer=r-storm",
                         "--engine", "ideal", "--json")
    assert code == 0 and [r["scheduler"] for r in json.loads(out)["rows"]] == ["ffd"]
    assert err == ("warning: ds2.placer: a parameter for ds2, which is not among the schedulers compared (ffd): "
                   "not used (fix: add ds2 to the schedulers, or drop the parameter)")


def test_a_misspelt_key_in_a_plan_file_is_a_warning(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    assert run("plan", "nasiri-linear", "hetero-3", "--engine", "ideal", "--out", str(plan_file))[0] == 0
    doc = json.loads(plan_file.read_text())
    doc["source_rate"] = doc.pop("source_rates")
    plan_file.write_text(json.dumps(doc))
    code, _, err = run("evaluate", "nasiri-linear", "hetero-3", str(plan_file), "--engine", "ideal", "--json")
    assert code == 0
    assert err == (f"warning: {plan_file}: source_rate: not a plan field, so it is not read (fix: did you mean "
                   "'source_rates'?)")


def test_ds2_true_rates_for_no_operator_and_an_unknown_placer_exit_2() -> None:
    """The first was planned without a word (exit 0), the second was an "infeasible" plan (exit 1)."""
    code, _, err = run("plan", "nasiri-linear", "hetero-3", "-s", "ds2", "-p", "true_rates.nope=100")
    assert code == 2 and err == ("error: --param true_rates.nope: ds2: 'nope' is not an operator of topology "
                                 "'nasiri-linear' (fix: name one of spout, low, mid, high)")
    code, _, err = run("plan", "nasiri-linear", "hetero-3", "-s", "ds2", "-p", "placer=nope")
    assert code == 2 and err == ("error: --param placer: ds2: unknown placer 'nope' (fix: use one of ffd, r-storm, "
                                 "round-robin)")


def test_an_engine_parameter_error_names_the_engine_the_parameter_and_the_option() -> None:
    """Was "--param: engine parameter trigger_s must be ≥ 0": neither the engine nor its full name."""
    code, _, err = run("plan", "nasiri-linear", "hetero-3", "-p", "spark.trigger_s=-1")
    assert code == 2 and err == ("error: --param: the spark engine's parameter spark.trigger_s must be ≥ 0, got "
                                 "-1.0 (fix: give spark.trigger_s a value ≥ 0)")


def test_a_plan_made_for_another_instance_is_a_warning(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    run("plan", "nasiri-linear", "hetero-3", "--engine", "ideal", "--out", str(plan_file))
    doc = json.loads(plan_file.read_text()) | {"topology": "other"}
    plan_file.write_text(json.dumps(doc))
    code, _, err = run("evaluate", "nasiri-linear", "hetero-3", str(plan_file), "--engine", "ideal", "--json")
    assert code == 0 and f"warning: {plan_file}: topology: the plan was made for topology 'other'" in err
