"""`qmodel validate` at the terminal's width, down to 40 columns: no line wider, nothing of a case lost."""

import json
import os
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize("columns", [40, 80])
def test_the_report_opens_with_the_scorecard_whole_at_any_width(columns: int) -> None:
    payload = json.loads(CliRunner().invoke(cli, ["validate", "--format", "json"]).stdout)
    text = CliRunner().invoke(cli, ["validate"], env={"COLUMNS": str(columns)}).stdout
    head = text[: text.index("Misses (")]
    assert "\n\nScorecard\n" in head[:100] and "predictions judged," in head
    words = head.split()
    for study in payload["scorecard"]["studies"]:  # every count and share whole, none split across lines
        assert study["study"] in words
        assert {str(study["predictions"]), str(study["within_tolerance"]), str(study["misses"])} <= set(words)
        if columns == 80:  # one study per line, its numbers beside it
            line = next(line for line in head.splitlines() if line.split()[:1] == [study["study"]])
            assert line.split()[1:4] == [
                str(study["predictions"]),
                str(study["within_tolerance"]),
                str(study["paper_slips"]),
            ]


def test_piped_the_report_is_80_columns_and_opens_with_the_scorecard() -> None:
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    qmodel = Path(sys.executable).with_name("qmodel")
    piped = subprocess.run([str(qmodel), "validate"], capture_output=True, text=True, env=env, check=False)
    lines = piped.stdout.splitlines()
    assert piped.returncode == 0 and lines[2] == "Scorecard"
    assert max(len(line) for line in lines) <= 80
