"""Hostile and careless input: nothing a user supplies is evaluated, and each bad value is one clear
error, at once, however long or strange (issue 12)."""

import io
import re

import pytest
from click.testing import CliRunner

from qmodel.batch import run_batch
from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.units import parse_value

HOSTILE_CELLS = [
    "__import__('os').system('echo pwned')",
    "=cmd|' /C calc'!A0",
    "2*400",
    "1e3 + 1",
    "eval('800')",
    "${jndi:ldap://x}",
    "800; rm -rf /",
    "8" * 3000 + "x",
    "9" * 3000,
    "1" * 2000 + "." + "1" * 2000 + "e",
    "\x00800",
]


@pytest.mark.parametrize("cell", HOSTILE_CELLS, ids=range(len(HOSTILE_CELLS)))
def test_a_hostile_cell_is_an_error_row_and_the_good_row_is_still_computed(cell: str) -> None:
    text = f'arrival_rate,service_time\n"{cell}",1\n800,1\n'
    out, err = io.StringIO(), io.StringIO()
    summary = run_batch("mm1", text, out, err)
    assert list(summary.errors) == [0]
    assert out.getvalue().splitlines()[-1].startswith("800,1,0.8,")
    assert len(err.getvalue()) < 400  # the message quotes a long cell shortened


def test_a_hostile_cell_is_not_evaluated(tmp_path, monkeypatch) -> None:
    marker = tmp_path / "ran"
    monkeypatch.chdir(tmp_path)
    cell = f"__import__('pathlib').Path('{marker}').touch()"
    run_batch("mm1", f'arrival_rate,service_time\n"{cell}",1\n', io.StringIO(), io.StringIO())
    assert not marker.exists()


@pytest.mark.parametrize("header", ["__class__", "arrival_rate[__import__('os')]", "service_time(os.system)"])
def test_a_hostile_header_is_a_pass_through_column_or_a_unit_error(header: str) -> None:
    text = f"arrival_rate,service_time,{header}\n800,1,x\n"
    try:
        out = io.StringIO()
        run_batch("mm1", text, out, io.StringIO())
    except InputError as error:
        assert "unit" in str(error) or "twice" in str(error)
    else:
        assert out.getvalue().splitlines()[1].startswith("800,1,x,0.8,")


def test_a_map_to_a_name_outside_the_formula_is_refused() -> None:
    result = CliRunner().invoke(cli, ["batch", "mm1", "-", "--map", "a=os.system"], input="a,b\n1,2\n")
    assert result.exit_code == 2 and result.output.startswith("error: ")


@pytest.mark.parametrize("digits", [1000, 2000, 3000])
def test_a_long_digit_argument_is_answered_at_once(digits: int) -> None:
    result = CliRunner().invoke(cli, ["calc", "mm1", f"arrival_rate={'1' * digits}x", "service_time=1ms"])
    assert result.exit_code == 2
    assert len(result.output) < 400


def test_a_number_past_the_largest_double_in_a_sweep_is_refused() -> None:
    result = CliRunner().invoke(cli, ["sweep", "mm1", "arrival_rate=1..1e309", "service_time=1ms"])
    assert result.exit_code == 2
    assert "too large" in result.output
    assert not re.search(r"\b(nan|inf)\b", result.output)


def test_minus_zero_is_printed_as_zero_in_every_format() -> None:
    for fmt in ("table", "csv", "json"):
        result = CliRunner().invoke(cli, ["calc", "round_trip_time", "distance=-0.0", "--format", fmt])
        assert result.exit_code == 0
        assert "-0" not in result.output


def test_parse_value_never_evaluates_an_expression() -> None:
    with pytest.raises(InputError):
        parse_value("arrival_rate", "__import__('os')", "1/s")
