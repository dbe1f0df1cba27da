"""calc and sweep lists read as scenario distances are: two whole numbers joined by a comma with no space
(``distance=0,5km``) may be one number with a decimal comma, so they are refused with both spellings;
a count (``servers=6,8``) cannot have a decimal part and stays a list."""

import pytest
from click.testing import CliRunner

from qmodel.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="qmodel")


@pytest.mark.parametrize(
    "command",
    [
        ["calc", "transaction_elongation", "distance=0,5km", "cf_requests=10", "sync_writes=2"],
        ["calc", "transaction_elongation", "distance=20km", "cf_requests=10,5", "sync_writes=2"],
        ["sweep", "transaction_elongation", "distance=20,5km", "cf_requests=10", "sync_writes=2"],
    ],
)
def test_two_whole_numbers_joined_by_a_comma_are_refused_as_ambiguous(command: list[str]) -> None:
    result = run(*command)
    assert result.exit_code == 2
    assert "ambiguous" in result.output and "for one value, or" in result.output


@pytest.mark.parametrize("distance", ["0km,5km", "0, 5km", "0,5,10km"])
def test_a_list_written_with_units_a_space_or_three_items_is_a_list(distance: str) -> None:
    result = run(
        "calc",
        "transaction_elongation",
        f"distance={distance}",
        "cf_requests=10",
        "sync_writes=2",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    assert len(result.output.strip().splitlines()) == 1 + len(distance.split(","))


def test_a_list_of_counts_stays_a_list() -> None:
    result = run("calc", "mmc", "arrival_rate=20K", "service_time=150us", "servers=6,8", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert len(result.output.strip().splitlines()) == 3
