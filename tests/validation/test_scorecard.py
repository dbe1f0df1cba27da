"""The scorecard: agreement is ok + paper-slip over the predictions neither calibrated nor inconsistent; it
opens the report in every format; the docs carry it generated, and a block that drifted fails here."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.output import regenerate
from qmodel.validation.judge import run_casebooks
from qmodel.validation.score import scorecard
from qmodel.validation.scorecard import BEGIN, END, blocks, main, marked_files

ROOT = Path(__file__).resolve().parents[2]

ONE_OF_EACH = """study = "demo.txt"
title = "Demo"
coverage = { statements = 10, not_encoded = [7, 9] }

[[case]]
id = "ok"
quantity = "littles_law.number_in_system"
citation = "§1"
inputs = { throughput = 1000, response_time = "5s" }
paper = 5000
tolerance = { relative = 0.01 }

[[case]]
id = "slip"
quantity = "littles_law.number_in_system"
citation = "§2"
inputs = { throughput = 1000, response_time = "6s" }
paper = 5500
tolerance = { relative = 0.01 }
slip = "1000 × 6 is 6000"
recomputed = 6000

[[case]]
id = "incons"
quantity = "littles_law.number_in_system"
citation = "§3"
inputs = { throughput = 1000, response_time = "7s" }
paper = 9000
tolerance = { relative = 0.01 }
inconsistent = "the rate, time and number printed disagree"
disagree = [{ value = "1000/s, 7 s", citation = "§3" }, { value = "9000", citation = "§4" }]
arithmetic = "1000/s × 7 s = 7000, not 9000"

[[case]]
id = "miss"
quantity = "littles_law.number_in_system"
citation = "§5"
inputs = { throughput = 1000, response_time = "8s" }
paper = 9500
tolerance = { relative = 0.01 }
note = "the model leaves out the queue"

[[case]]
id = "calib"
quantity = "littles_law.number_in_system"
citation = "§6"
inputs = { throughput = 1000, response_time = "10s" }
paper = 10000
tolerance = { relative = 0.01 }
calibrated = "fits the time"
"""


@pytest.fixture()
def demo(tmp_path) -> str:
    path = tmp_path / "demo.toml"
    path.write_text(ONE_OF_EACH, encoding="utf-8")
    return str(path)


def test_agreement_is_ok_and_paper_slip_over_predictions_neither_calibrated_nor_inconsistent(demo) -> None:
    study, total = scorecard(run_casebooks([demo]))
    counts = (
        study.predictions,
        study.within,
        study.slips,
        study.inconsistent,
        study.misses,
        study.calibrated,
    )
    assert counts == (4, 2, 1, 1, 1, 1)
    assert study.judged == 3 and study.agreement == pytest.approx(2 / 3)
    assert study.coverage == pytest.approx(0.8) and total.agreement == study.agreement


def test_the_text_report_opens_with_the_scorecard_then_the_misses(demo) -> None:
    lines = CliRunner().invoke(cli, ["validate", demo], env={"COLUMNS": "80"}).output.splitlines()
    assert lines[2] == "Scorecard"
    assert lines[3].split() == "study pred within slip incons miss calib cover agree".split()
    assert lines[4].split() == ["demo", "4", "2", "1", "1", "1", "1", "80.0%", "66.7%"]
    text = "\n".join(lines)
    assert (
        text.index("Of 3 predictions judged, 2 agree within their tolerance (66.7%)")
        < text.index("Misses (1)")
        < text.index("miss: paper 9500, model 8000")
        < text.index("Verdicts")
    )


def test_the_json_report_opens_with_the_same_scorecard(demo) -> None:
    payload = json.loads(CliRunner().invoke(cli, ["validate", demo, "--format", "json"]).output)
    assert next(iter(payload)) == "scorecard"
    first, total = payload["scorecard"]["studies"]
    assert first["within_tolerance"] == 2 and first["inconsistent"] == 1 and total["study"] == "all"
    assert [case["case"] for case in payload["misses"]] == ["miss"]


@pytest.fixture(scope="module")
def shipped() -> dict:
    return json.loads(CliRunner().invoke(cli, ["validate", "--format", "json"]).output)


def test_the_shipped_headline_equals_the_count_of_ok_and_slips_over_the_judged_predictions(shipped) -> None:
    verdicts = [case["verdict"] for case in shipped["cases"]]
    within = verdicts.count("ok") + verdicts.count("paper-slip")
    judged = len(verdicts) - verdicts.count("calibrated") - verdicts.count("inconsistent")
    total = shipped["scorecard"]["studies"][-1]
    assert (total["within_tolerance"], total["judged"]) == (within, judged)
    share = f"{100 * within / judged:.1f}%"
    assert shipped["scorecard"]["headline"].startswith(
        f"Of {judged} predictions judged, {within} agree within their tolerance ({share})"
    )


def test_inconsistent_is_at_most_five_percent_of_any_studys_predictions(shipped) -> None:
    for study in shipped["scorecard"]["studies"]:
        assert study["inconsistent"] <= 0.05 * study["predictions"], study["study"]


def test_write_regenerates_the_block_and_check_finds_a_drifted_one(tmp_path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        f"# Title\n\ntext before\n\n{BEGIN}\nold numbers\n{END}\n\ntext after\n", encoding="utf-8"
    )
    assert main(["--write", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\ntext before\n\n") and text.endswith(f"{END}\n\ntext after\n")
    assert "| **all** |" in text and "old numbers" not in text
    assert main(["--check", str(page)]) == 0
    page.write_text(text.replace("| **all** |", "| **all (typed)** |"), encoding="utf-8")
    assert main(["--check", str(page)]) == 1


def test_a_file_without_the_markers_is_refused(tmp_path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# no block\n", encoding="utf-8")
    assert main(["--write", str(page)]) == 2


def test_every_marked_doc_in_the_repository_carries_the_tools_numbers() -> None:
    """README.md and docs/**/*.md: a block that drifted from `qmodel validate` fails here; regenerate it with
    `python -m qmodel.validation.scorecard --write FILE`. (A README without the block is not checked.)"""
    files = marked_files(ROOT)
    assert ROOT / "docs" / "background" / "validation.md" in files
    generated = blocks(run_casebooks([]))
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert regenerate(text, generated, str(path)) == text, f"{path} drifted: regenerate it"
