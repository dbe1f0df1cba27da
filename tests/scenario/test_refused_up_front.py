"""Input a planner mistypes is refused at once, in one line naming where it is and what is allowed, before
any solve (a planner's trial of issue 32, trial 4: D4–D7, D11–D13, D15)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.scenario import band
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.measurements import read_measurements


@pytest.mark.parametrize(
    ("cell", "decimal", "advice"),
    [
        ("97,1", ";", "97,1% or 0,971"),
        ("97.1", ",", "97.1% or 0.971"),
        ("120%", ",", "e.g. 95% or 0.95"),
    ],
)
def test_a_share_within_the_goal_above_1_is_refused_naming_the_row_as_the_files_share_is(
    tmp_path: Path, cell: str, decimal: str, advice: str
) -> None:
    table = tmp_path / "rows.csv"
    table.write_text(
        f"distance{decimal}member{decimal}quantity{decimal}value\n"
        f"0km{decimal}SYS1{decimal}share_within_goal{decimal}{cell}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as refused:
        read_measurements(str(table), "mine")
    said = str(refused.value)
    assert said.startswith(f"{table}: row 2, column value = {cell}") and advice in said
    assert "\n" not in said


def test_a_cpu_busy_in_cps_above_1_is_a_reading_not_a_share(tmp_path: Path) -> None:
    table = tmp_path / "rows.csv"
    table.write_text("distance,member,quantity,value\n0km,SYS1,cpu_of_one_cp,350%\n", encoding="utf-8")
    (row,) = read_measurements(str(table), "mine")
    assert row.value == pytest.approx(3.5)


def _env2_file(folder: Path, first_line: str) -> Path:
    path = folder / "mine.toml"
    shipped = resolve_scenario("gdps-env2").read_text(encoding="utf-8")
    path.write_text(f"{first_line}\n{shipped}", encoding="utf-8")
    return path


def test_a_misspelt_free_key_is_refused_by_every_command_that_reads_the_file(tmp_path: Path) -> None:
    """Trial 4, D15: ``free = ["member.*.othr"]`` passed ``qmodel scenario`` with exit 0; only calibrate
    caught it. Both refuse it now, naming the file's key; a --free typed is named --free."""
    path = _env2_file(tmp_path, 'free = ["member.*.othr"]')
    table = tmp_path / "rows.csv"
    table.write_text("distance,member,quantity,value\n0km,G1P1,response_time,40ms\n", encoding="utf-8")
    for args in (["scenario", str(path)], ["scenario", "calibrate", str(path), str(table)]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2
        assert result.output.startswith("error: mine.toml: free = member.*.othr; allowed: one of ")
    typed = CliRunner().invoke(cli, ["scenario", "calibrate", str(path), str(table), "--free", "locks.span"])
    assert typed.exit_code == 2 and typed.output.startswith("error: --free = locks.span; allowed: one of ")


def test_every_refusal_of_calibrate_starts_error_in_lower_case(tmp_path: Path) -> None:
    path = _env2_file(tmp_path, 'free = ["member.*.other"]')
    for args in (
        ["scenario", "calibrate", str(path)],
        ["scenario", "calibrate", str(path), "x.csv", "--free"],
    ):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2 and result.output.startswith("error: ")


@pytest.mark.parametrize(
    "options",
    [
        ["--distance", "25,60km"],
        ["--distance", "20,5km"],
        ["--max-distance", "--up-to", "0km"],
        ["--distance", "0..100km", "--points", "5000"],
        ["--level", "95"],
    ],
)
def test_options_are_refused_before_the_file_is_read_and_solved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: list[str]
) -> None:
    """Trial 4, D12/D13: a bad --distance was refused only after the file was read and its hot set
    inferred (3 s). The options are read first: the file's reading is never reached."""

    def unreached(path: object) -> None:
        raise AssertionError("the file was read before the options were checked")

    monkeypatch.setattr(band, "load_banded", unreached)
    result = CliRunner().invoke(cli, ["scenario", str(_env2_file(tmp_path, "")), *options])
    assert result.exit_code == 2 and result.output.startswith("error: --"), result.output
