"""Casebook tables, case references, the inconsistent verdict, calibrations, and the validate report."""

import csv
import io
import json
import re

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.errors import CatalogueError
from qmodel.validation.casebook import load_casebook
from qmodel.validation.judge import run_casebooks
from qmodel.validation.report import FIELDS, deviation_text, tolerance_text

HEADER = 'study = "demo.txt"\ntitle = "Demo"\n'
TABLE = """
[[table]]
id = "disc"
citation = "Table 1"
columns = ["0 km", "20 km", "40 km", "60 km"]
keys = ["0km", "20km", "40km", "60km"]
unit = "ms"
units = { distance = "1" }
rows.distance = ["0km", "20km", "40km", "60km"]
rows.DISC = [0.3, 0.5, 0.7, ""]

[[table.rule]]
id = "growth"
quantity = "distance_growth.time_at_distance"
inputs = { time_at_zero = { row = "DISC", column = "0km" }, distance = { row = "distance" }, round_trips = 1 }
paper = { row = "DISC" }
tolerance = { absolute = 0.05 }
calibrated = { "0km" = "the base of the series" }
"""


def casebook(tmp_path, body: str):
    path = tmp_path / "demo.toml"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def results_of(tmp_path, body: str) -> dict:
    return {r.case.id: r for r in run_casebooks([str(casebook(tmp_path, body))])}


def test_a_table_rule_expands_into_one_case_per_column_with_a_printed_value(tmp_path) -> None:
    cases = load_casebook(casebook(tmp_path, TABLE))
    assert [case.id for case in cases] == ["disc-growth-0km", "disc-growth-20km", "disc-growth-40km"]
    assert cases[2].paper == (0.7, 0.7) and cases[2].unit == "ms"
    assert "row DISC, column 40 km" in cases[2].citation


def test_the_calibrated_column_is_reported_apart_and_predicts_the_columns_that_use_it(tmp_path) -> None:
    results = results_of(tmp_path, TABLE)
    assert results["disc-growth-0km"].verdict == "calibrated"
    assert results["disc-growth-0km"].predicts == ("disc-growth-20km", "disc-growth-40km")
    assert results["disc-growth-40km"].verdict == "ok"
    assert results["disc-growth-40km"].computed == pytest.approx(0.7)


def test_a_case_can_take_another_cases_model_value_as_an_input(tmp_path) -> None:
    results = results_of(
        tmp_path,
        """
[[case]]
id = "share"
quantity = "reads_per_write.read_fraction"
citation = "§1"
inputs = { reads_per_write = 1.13 }
paper = 56.5
unit = "%"
tolerance = { absolute = 0.5 }
slip = "1.13 / 2.13"
recomputed = 53.05

[[case]]
id = "misses"
quantity = "lpar_busy.lpar_busy"
citation = "§2"
inputs = { cp_fraction = { case = "share" }, logical_cps = 2 }
paper = 26.53
unit = "%"
tolerance = { relative = 0.001 }
""",
    )
    assert results["share"].verdict == "paper-slip"
    assert results["misses"].verdict == "ok"
    assert results["misses"].case.depends_on == ("share",)


def test_cases_that_use_each_others_values_in_a_cycle_are_refused(tmp_path) -> None:
    body = "".join(
        f'''
[[case]]
id = "{me}"
quantity = "littles_law.number_in_system"
citation = "§1"
inputs = {{ throughput = {{ case = "{other}" }}, response_time = "1s" }}
paper = 1
tolerance = {{ relative = 0.1 }}
'''
        for me, other in (("a", "b"), ("b", "a"))
    )
    with pytest.raises(CatalogueError, match="cycle"):
        run_casebooks([str(casebook(tmp_path, body))])


INCONSISTENT = """
[[case]]
id = "c"
quantity = "littles_law.number_in_system"
citation = "§1"
inputs = { throughput = 1000, response_time = "5s" }
paper = PAPER
tolerance = { relative = 0.01 }
inconsistent = "the printed concurrency disagrees with Little's law on the printed rate and time"
disagree = [{ value = "1000/s", citation = "§1" }, { value = "5 s", citation = "§2" },
            { value = "PAPER", citation = "§3" }]
arithmetic = "1000/s × 5 s = 5000 in the system, not PAPER"
"""


def test_printed_values_that_disagree_with_each_other_are_inconsistent(tmp_path) -> None:
    result = results_of(tmp_path, INCONSISTENT.replace("PAPER", "9000"))["c"]
    assert result.verdict == "inconsistent" and result.explained


def test_a_case_called_inconsistent_that_the_model_reproduces_is_a_miss(tmp_path) -> None:
    result = results_of(tmp_path, INCONSISTENT.replace("PAPER", "5000"))["c"]
    assert result.verdict == "miss" and not result.explained


def test_a_calibration_without_a_printed_value_fits_a_parameter_the_others_use(tmp_path) -> None:
    results = results_of(
        tmp_path,
        """
[[case]]
id = "fit"
quantity = "round_trips_fitted.round_trips"
citation = "§1"
inputs = { time_near = "1ms", time_far = "2.2ms", distance_between = "80km" }
tolerance = { absolute = 0.1 }
calibrated = "round trips fitted on two rows"

[[case]]
id = "use"
quantity = "distance_growth.time_at_distance"
citation = "§2"
inputs = { time_at_zero = "1ms", distance = "40km", round_trips = { case = "fit" } }
paper = 1.6
unit = "ms"
tolerance = { absolute = 0.05 }
""",
    )
    assert results["fit"].verdict == "calibrated" and results["fit"].computed == pytest.approx(1.5)
    assert results["fit"].predicts == ("use",)
    assert results["use"].verdict == "ok"


def test_deviation_has_one_form_without_float_noise(tmp_path) -> None:
    results = results_of(
        tmp_path,
        TABLE
        + """
[[case]]
id = "rel"
quantity = "round_trip_time.round_trip_time"
citation = "§1"
inputs = { distance = "70km" }
paper = 700
unit = "us"
tolerance = { relative = 0.001 }
""",
    )
    assert deviation_text(results["rel"]) == "0%"
    assert tolerance_text(results["rel"]) == "±0.1%"
    assert deviation_text(results["disc-growth-40km"]) == "0 ms"
    assert tolerance_text(results["disc-growth-40km"]) == "±0.05 ms"


EXPLAINED_MISS = (
    '[[case]]\nid = "c"\nquantity = "littles_law.number_in_system"\n'
    'citation = "§1"\ninputs = { throughput = 1000, response_time = "5s" }\n'
    "paper = 9000\ntolerance = { relative = 0.01 }\n"
    'note = "the model leaves out the queue: 5000 vs 9000"\n'
)


def test_validate_exits_0_for_an_explained_miss_and_1_with_strict(tmp_path) -> None:
    path = casebook(tmp_path, EXPLAINED_MISS)
    assert CliRunner().invoke(cli, ["validate", str(path)]).exit_code == 0
    assert CliRunner().invoke(cli, ["validate", str(path), "--strict"]).exit_code == 1


def test_strict_says_on_stderr_why_it_failed(tmp_path) -> None:
    path = casebook(tmp_path, EXPLAINED_MISS)
    result = CliRunner().invoke(cli, ["validate", str(path), "--strict"])
    assert "failed (--strict): 1 miss(es)" in result.stderr


def test_a_difference_of_percentages_is_in_points_one_decimal_finer_than_its_tolerance(tmp_path) -> None:
    results = results_of(
        tmp_path,
        TABLE
        + """
[[case]]
id = "share"
quantity = "share_within_goal.share"
citation = "§1"
inputs = { goal = "125ms", mean_response = "60ms", fixed_part = "0ms", shape = 1 }
paper = 85
unit = "%"
tolerance = { absolute = 3 }
""",
    )
    assert deviation_text(results["share"]).endswith(" pt")
    assert tolerance_text(results["share"]) == "±3 pt"
    assert deviation_text(results["share"]).partition(".")[2].removesuffix(" pt").isdigit()


def test_csv_and_json_carry_the_same_fields(tmp_path) -> None:
    path = str(casebook(tmp_path, TABLE))
    table = CliRunner().invoke(cli, ["validate", path, "--format", "csv"]).output
    rows = list(csv.DictReader(io.StringIO(table)))
    payload = json.loads(CliRunner().invoke(cli, ["validate", path, "--format", "json"]).output)
    assert tuple(rows[0]) == FIELDS
    assert tuple(payload["cases"][0]) == FIELDS
    assert [row["deviation"] for row in rows] == [case["deviation"] for case in payload["cases"]]
    headline = payload["scorecard"]["headline"]
    assert headline.startswith("Of 2 predictions judged, 2 agree within their tolerance")


def test_csv_and_json_give_the_deviation_as_a_number_with_its_unit_for_spreadsheets(tmp_path) -> None:
    path = str(casebook(tmp_path, TABLE))
    table = CliRunner().invoke(cli, ["validate", path, "--format", "csv"]).output
    rows = list(csv.DictReader(io.StringIO(table)))
    cases = json.loads(CliRunner().invoke(cli, ["validate", path, "--format", "json"]).output)["cases"]
    for row, case in zip(rows, cases, strict=True):
        shown = float(re.match(r"[-+]?[\d.]+", row["deviation"])[0])  # the text, rounded for reading
        assert float(row["deviation_value"]) == pytest.approx(shown, abs=1e-3)
        assert case["deviation_value"] == pytest.approx(float(row["deviation_value"]))
        assert row["deviation_unit"] == case["deviation_unit"] == "ms"


def test_the_report_has_a_legend_a_quotable_summary_and_fits_80_columns(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    output = CliRunner().invoke(cli, ["validate"]).output
    assert "paper-slip   the study's own arithmetic is wrong here" in output
    assert "predictions judged," in output and "agree within their tolerance" in output
    assert max(len(line) for line in output.splitlines()) <= 80


def test_a_table_declaring_uses_as_one_string_is_refused_not_read_letter_by_letter(tmp_path) -> None:
    body = TABLE.replace('citation = "Table 1"', 'citation = "Table 1"\nuses = "other-case"', 1)
    with pytest.raises(CatalogueError, match="uses must be a list of case ids"):
        load_casebook(casebook(tmp_path, body))
