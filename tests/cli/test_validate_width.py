"""`qmodel validate` at the terminal's width, down to 40 columns: no line wider, nothing of a case lost."""

import json

import pytest
from click.testing import CliRunner

from qmodel.cli import cli


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return json.loads(CliRunner().invoke(cli, ["validate", "--format", "json"]).stdout)["cases"]


@pytest.mark.parametrize("columns", [40, 50, 60, 80])
def test_no_line_of_the_report_is_wider_than_the_terminal(columns: int, cases: list[dict]) -> None:
    result = CliRunner().invoke(cli, ["validate"], env={"COLUMNS": str(columns)})
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    words = set(result.stdout.split())
    for case in cases:  # each case's paper, model, deviation and tolerance whole, and its verdict
        assert case["case"] in words or columns < 50, case["case"]
        assert {case["verdict"], *str(case["deviation"]).split(), *str(case["tolerance"]).split()} <= words


def test_a_narrow_terminal_gives_each_case_its_numbers_named() -> None:
    text = CliRunner().invoke(cli, ["validate", "esg-ds8000-validation-2008"], env={"COLUMNS": "40"}).stdout
    assert "  corners-throughput-concurrency\n    paper 448  model 255.89\n" in text
