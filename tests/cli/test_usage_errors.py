"""Click's usage errors (a value of the wrong type, a missing argument, an unknown option or command) in
qmodel's own form: one line "error: ...", exit status 2, with the help to read."""

import pytest
from click.testing import CliRunner

from qmodel.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="qmodel")


@pytest.mark.parametrize(
    "args, command",
    [
        (["scenario", "gdps-env3", "--points", "1e6"], "qmodel scenario"),
        (["validate", "--format", "xml"], "qmodel validate"),
        (["scenario-profile", "--transactions", "3394"], "qmodel scenario-profile"),
        (["scenario", "gdps-env2", "--distance", "70", "km"], "qmodel scenario"),
        (["scenario", "gdps-env2", "--distance"], "qmodel scenario"),
        (["--bogus"], "qmodel"),
        (["nosuch"], "qmodel"),
        (["formula", "shw"], "qmodel formula"),
    ],
)
def test_a_usage_error_is_one_error_line_with_status_2_naming_the_help(args: list[str], command: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and result.output.count("\n") == 1
    assert f"(see '{command} --help')" in result.output
    assert "Usage:" not in result.output


def test_a_value_of_the_wrong_type_names_the_option_and_the_value() -> None:
    output = run("scenario", "gdps-env3", "--points", "1e6").output
    assert "'--points': '1e6' is not a valid integer" in output


def test_a_unit_typed_apart_from_its_number_gets_the_value_written_as_one_word() -> None:
    output = run("scenario", "gdps-env2", "--distance", "70", "km").output
    assert "extra argument (km)" in output and "--distance 70km" in output and '--distance "70 km"' in output


def test_a_second_value_is_not_taken_for_a_unit() -> None:
    output = run("scenario", "gdps-env2", "--distance", "70km", "30km").output
    assert "extra argument (30km)" in output and "70km30km" not in output and "one value" not in output


def test_qmodel_alone_still_shows_the_help() -> None:
    assert "Commands:" in run().output


def test_a_unit_typed_apart_from_its_number_in_name_value_pairs_gets_the_pair_written_as_one_word() -> None:
    result = run("calc", "mm1", "arrival_rate=800", "service_time=1", "ms")
    assert result.exit_code == 2 and "allowed: service_time=1ms" in result.output


@pytest.mark.parametrize(
    "number, word, apart",
    [
        ("70", "km", True),
        ("5", "/s", True),
        ("190", "K", True),
        ("80", "%", True),
        ("1e3", "us", True),
        ("1.", "ms", True),  # a number ending in its point is a number still
        ("70", "5km", False),
        ("800", "service_time", False),
        ("1ms", "x", False),
        ("G1", "ms", False),
    ],
)
def test_a_unit_apart_is_a_word_of_letters_after_a_number_alone(number: str, word: str, apart: bool) -> None:
    from qmodel.cli.common import unit_apart

    assert unit_apart(number, word) is apart


def test_a_name_after_a_pair_is_not_taken_for_its_unit() -> None:
    # it was advised as "arrival_rate=800service_time (a number and its unit are one word)"
    result = run("calc", "mm1", "arrival_rate=800", "service_time")
    assert result.exit_code == 2
    assert "not a NAME=VALUE pair" in result.output and "800service_time" not in result.output


def test_a_unit_apart_from_a_number_ending_in_its_point_gets_the_pair_written_as_one_word() -> None:
    # it was refused as "not a NAME=VALUE pair", unlike service_time=1 ms
    result = run("calc", "mm1", "arrival_rate=800", "service_time=1.", "ms")
    assert result.exit_code == 2 and "allowed: service_time=1.ms" in result.output


def test_an_options_unit_apart_from_a_number_ending_in_its_point_gets_the_value_written_as_one_word() -> None:
    output = run("scenario", "gdps-env2", "--distance", "70.", "km").output
    assert "--distance 70.km" in output
