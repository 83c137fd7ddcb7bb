"""Every numeric scheduler parameter has a declared range, and out-of-range values are refused before planning.

Found by the bad-input corpus: ``-p max_replicas=0`` planned one replica each with status ok, ``ants=0`` was a
traceback, ``optimal -p max_replicas=<huge>`` hung. The ranges live in one table (schedulers/ranges.py).
"""

from __future__ import annotations

import dataclasses
import typing

import pytest
from typer.testing import CliRunner

from streamplace.cli import app
from streamplace.errors import SchedulerParamError
from streamplace.schedulers import create
from streamplace.schedulers.base import REGISTRY  # importing it imports the package: every scheduler registers
from streamplace.schedulers.ranges import range_of


def _numeric(cls) -> list[tuple[str, type]]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if typing.get_origin(hints[f.name]) is dict:
            continue  # mappings: test_mapping_values_are_in_range
        args = set(typing.get_args(hints[f.name])) or {hints[f.name]}
        kinds = [t for t in (int, float) if t in args]
        if kinds and bool not in args:
            out.append((f.name, kinds[0]))
    return out


CASES = [(name, field, kind) for name, cls in sorted(REGISTRY.items()) for field, kind in _numeric(cls)]


@pytest.mark.parametrize(("scheduler", "field", "kind"), CASES)
def test_every_numeric_parameter_declares_a_range_and_refuses_values_outside_it(scheduler: str, field: str,
                                                                                 kind: type) -> None:
    allowed = range_of(scheduler, field)
    assert allowed is not None, f"{scheduler}.{field} has no declared range (schedulers/ranges.py)"
    below = allowed.lo if allowed.lo_open else allowed.lo - 1
    above = allowed.hi * 2 + 1
    for bad in (below, above):
        value = str(int(bad)) if kind is int else repr(float(bad))
        with pytest.raises(SchedulerParamError, match=rf"{scheduler}\.{field} must be in .*fix"):
            create(scheduler, {field: value})
    if kind is float:
        for bad in ("nan", "inf"):
            with pytest.raises(SchedulerParamError):
                create(scheduler, {field: bad})
    default = next(f for f in dataclasses.fields(REGISTRY[scheduler]) if f.name == field).default
    if isinstance(default, int | float) and not isinstance(default, bool):
        assert allowed.contains(default), f"{scheduler}.{field}'s default {default} is outside {allowed.text()}"


def test_the_command_line_refuses_before_running_anything() -> None:
    runner = CliRunner()
    for args in (["plan", "nasiri-linear", "hetero-3", "-s", "ant-system", "-p", "ants=0"],
                 ["compare", "nasiri-linear", "hetero-3", "-p", "hetero.max_replicas=0"],
                 ["plan", "nasiri-linear", "hetero-3", "-s", "r-storm", "-p", "weights.cpu=-1"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "fix:" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(("scheduler", "key"), [("r-storm", "weights.cpu"), ("hill-climbing", "weights.lat"),
                                                ("ds2", "true_rates.spout"), ("odrp", "measured_rates.parser")])
def test_mapping_values_are_in_range(scheduler: str, key: str) -> None:
    with pytest.raises(SchedulerParamError, match=r"must be in .*fix"):
        create(scheduler, {key: "-1"})


def test_every_controller_and_simulator_parameter_has_a_range_and_simulate_refuses_nonsense(tmp_path) -> None:
    """The elastic side of the same rule (sim/factory.py): every numeric parameter of the BTU and threshold
    controllers and of the simulator is in RANGES; the bad-input corpus's cases exit 2 naming the parameter."""
    from streamplace.elastic.btu import BtuController
    from streamplace.elastic.factory import INTERNAL_FIELDS
    from streamplace.elastic.threshold import ThresholdController
    from streamplace.sim.engine import SimConfig
    from streamplace.sim.factory import RANGES

    for cls in (BtuController, ThresholdController, SimConfig):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name in INTERNAL_FIELDS or f.name in ("minutes", "seed"):
                continue
            args = set(typing.get_args(hints[f.name])) or {hints[f.name]}
            if (args & {int, float}) and bool not in args:
                assert f.name in RANGES, f"{cls.__name__}.{f.name} has no declared range"
    trace = tmp_path / "short.csv"
    trace.write_text("minute,machines\n0,1\n1,2\n2,3\n")
    runner = CliRunner()
    for args in (["--minutes", "100000000"], ["--pattern", str(trace)], ["-p", "dt=7200"],
                 ["-p", "btu_minutes=1e-300"], ["-p", "max_release_share=5"], ["-p", "release_window=2"],
                 ["-p", "scaling_threshold=-1"], ["-p", "weights=1,1,-2,1"]):
        result = runner.invoke(app, ["simulate", "manufacturing", *args])
        assert result.exit_code == 2, (args, result.output)
        assert "fix:" in result.output and "Traceback" not in result.output


def test_simulate_refuses_an_operator_no_vm_of_the_type_can_host(tmp_path) -> None:
    """From the bad-input corpus: an operator larger than the VM exited 0 reporting 85 % compliance while
    21 M items piled up unserved."""
    import yaml as _yaml

    spec = {"name": "fat", "operators": [{"id": "s", "kind": "source", "rate": 10},
                                         {"id": "huge", "kind": "sink", "cpu": 900, "memory_mb": 64}],
            "streams": [{"from": "s", "to": "huge"}]}
    path = tmp_path / "fat.yaml"
    path.write_text(_yaml.safe_dump(spec))
    result = CliRunner().invoke(app, ["simulate", str(path), "--minutes", "5"])
    assert result.exit_code == 2, result.output
    assert "huge" in result.output and "900" in result.output and "fix:" in result.output


def test_the_library_names_fields_and_the_command_line_names_its_options() -> None:
    """Library errors name parameters by field (params.dt, pattern, policy, engine); only the CLI speaks of
    --param, --pattern, --policy, --engine (issue 40)."""
    from streamplace.elastic.patterns import make_pattern
    from streamplace.errors import ModelError, SpecError
    from streamplace.perf.engines import EngineSettings
    from streamplace.sim.factory import build

    with pytest.raises(SpecError) as bad_dt:
        build("btu", {"dt": "7200"}, 60, 0)
    with pytest.raises(SpecError) as bad_pattern:
        make_pattern("no-such-pattern")
    with pytest.raises(ModelError) as bad_engine:
        EngineSettings("no-such-engine")
    paths = [e.value.problems[0].path for e in (bad_dt, bad_pattern, bad_engine)]
    assert paths == ["params.dt", "pattern", "engine"]
    assert not any("--" in str(e.value) for e in (bad_dt, bad_pattern, bad_engine))
    runner = CliRunner()
    out = runner.invoke(app, ["simulate", "manufacturing", "-p", "dt=7200"]).output
    assert "--param dt:" in out
    out = runner.invoke(app, ["simulate", "manufacturing", "--pattern", "no-such-pattern"]).output
    assert "--pattern: unknown arrival pattern" in out
