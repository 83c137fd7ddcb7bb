"""RunSettings and LiveSettings: settings checked once, when built, each error naming the field as the caller
spells it."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamplace.errors import SpecError
from streamplace.workflows.live_settings import LiveHooks, LiveSettings
from streamplace.workflows.run_settings import RunHooks, RunSettings


def test_the_defaults_are_a_valid_run() -> None:
    s = RunSettings()
    assert (s.duration_s, s.warmup_s, s.trigger_s, s.placement, s.sink) == (60.0, 15.0, None, "plan", "parquet")
    assert RunHooks().session is None and RunHooks().on_warning("said nowhere") is None


@pytest.mark.parametrize(("field", "value"), [
    ("duration_s", 0.0), ("duration_s", 86_401.0), ("duration_s", float("nan")), ("warmup_s", -1.0),
    ("trigger_s", 0.0), ("trigger_s", float("inf")), ("max_rate", -5.0), ("cores", 1.5), ("cores", 0),
    ("settle_rows", 2.5), ("settle_max_s", -1.0), ("placement", "anywhere"), ("sink", "kafka"),
    ("duration_s", True), ("cores", "2"),
])
def test_an_out_of_range_setting_is_refused_naming_it(field: str, value: object) -> None:
    with pytest.raises(SpecError, match=field):
        RunSettings(**{field: value})  # type: ignore[arg-type]


def test_errors_name_the_field_as_the_caller_spells_it() -> None:
    with pytest.raises(SpecError) as caught:
        RunSettings(max_rate=-1.0, warmup_s=-2.0, names={"max_rate": "--max-rate", "warmup_s": "--warmup"})
    text = str(caught.value)
    assert "--max-rate" in text and "--warmup" in text  # both problems, each with the caller's name
    assert "give --max-rate a positive value" in text


def test_settings_are_frozen() -> None:
    with pytest.raises(AttributeError):
        RunSettings().duration_s = 5.0  # type: ignore[misc]


def test_the_live_defaults_are_a_valid_live_run() -> None:
    s = LiveSettings()
    assert (s.duration_s, s.interval_s, s.trigger_s, s.sink, s.bounded_sources) == (120.0, 10.0, 1.0, "parquet",
                                                                                     False)
    assert LiveHooks().on_step is None and LiveHooks().session is None


@pytest.mark.parametrize(("field", "value"), [
    ("duration_s", 0.0), ("duration_s", float("inf")), ("interval_s", 0.5), ("interval_s", float("nan")),
    ("trigger_s", 0.0), ("trigger_s", -1.0), ("cores", 0), ("cores", 2.5), ("sink", "memory"), ("sink", "kafka"),
])
def test_an_out_of_range_live_setting_is_refused_naming_it(field: str, value: object) -> None:
    with pytest.raises(SpecError, match=field):
        LiveSettings(**{field: value})  # type: ignore[arg-type]


def test_live_refuses_a_sink_it_cannot_resume_naming_the_flag(tmp_path: Path) -> None:
    """The command line builds LiveSettings before Spark starts: a memory sink (run has one, live cannot re-enact
    from it) is exit 2 naming --sink, with the fix."""
    from typer.testing import CliRunner

    from streamplace.cli import app

    result = CliRunner().invoke(app, ["live", "linear", "rstorm-12", "--sink", "memory", "--duration", "5",
                                      "--out", str(tmp_path / "o"), "--no-page"])
    assert result.exit_code == 2, result.output
    assert "--sink: must be one of parquet, noop" in result.output and "give --sink parquet or noop" in result.output
    assert not (tmp_path / "o").exists()  # nothing started, nothing written
