"""A casebook is data a user can write: bad values are refused in one line (exit 2), an inconsistent case
carries its evidence, and one printed number supports one case unless each names its model step."""

import json

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.errors import CatalogueError
from qmodel.validation.casebook import load_casebook
from qmodel.validation.judge import run_casebooks

HEADER = 'study = "demo.txt"\ntitle = "Demo"\n'
LITTLE = 'quantity = "littles_law.number_in_system"\ninputs = { throughput = 1000, response_time = "5s" }\n'


def casebook(tmp_path, body: str):
    path = tmp_path / "demo.toml"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def one_case(paper_and_tolerance: str, extra: str = "") -> str:
    return f'[[case]]\nid = "c"\ncitation = "§1"\n{LITTLE}{paper_and_tolerance}{extra}'


@pytest.mark.parametrize(("values", "message"), [
    ("paper = nan\ntolerance = { relative = 0.01 }\n", "paper = nan"),
    ("paper = [nan, 6000]\ntolerance = { relative = 0.01 }\n", "paper = \\[nan, 6000\\]"),
    ("paper = [6000, 4000]\ntolerance = { relative = 0.01 }\n", "low <= high"),
    ("paper = inf\ntolerance = { relative = 0.01 }\n", "paper = inf"),
    ("paper = 5000\ntolerance = { relative = -0.01 }\n", "tolerance relative = -0.01"),
    ("paper = 5000\ntolerance = { absolute = nan }\n", "tolerance absolute = nan"),
    ("paper = 5000\ntolerance = { absolute = inf }\n", "tolerance absolute = inf"),
    ('paper = 5000\ntolerance = { relative = 0.01 }\nslip = "s"\nrecomputed = nan\n', "recomputed = nan"),
])
def test_a_bad_value_in_a_casebook_is_one_line_naming_it_with_exit_2(tmp_path, values, message) -> None:
    path = casebook(tmp_path, one_case(values))
    with pytest.raises(CatalogueError, match=message):
        load_casebook(path)
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_nan_paper_value_is_refused_not_taken_for_a_fitted_parameter(tmp_path) -> None:
    path = casebook(tmp_path, one_case("paper = nan\ntolerance = { relative = 0.01 }\n",
                                       'calibrated = "fits something"\n'))
    with pytest.raises(CatalogueError, match="paper = nan"):
        load_casebook(path)


def test_a_fitted_parameter_has_no_paper_value_and_is_calibrated(tmp_path) -> None:
    path = casebook(tmp_path, one_case("tolerance = { relative = 0.0 }\n", 'calibrated = "fits the lag"\n'))
    (case,) = load_casebook(path)
    assert case.paper is None and case.fitted
    (result,) = run_casebooks([str(path)])
    assert result.verdict == "calibrated"
    payload = json.loads(CliRunner().invoke(cli, ["validate", str(path), "--format", "json"]).output)
    assert payload["cases"][0]["paper"] is None


INCONSISTENT = 'inconsistent = "the printed values disagree"\n'
EVIDENCE = ('disagree = [{ value = "9000", citation = "§1" },\n'
            '            { value = "1000/s and 5 s", citation = "§2" }]\n'
            'arithmetic = "1000/s × 5 s = 5000, not 9000"\n')


@pytest.mark.parametrize(("extra", "message"), [
    (INCONSISTENT, "needs disagree"),
    (INCONSISTENT + 'disagree = [{ value = "9000", citation = "§1" }]\narithmetic = "x"\n', "needs disagree"),
    (INCONSISTENT + 'disagree = [{ value = "9000" }, { value = "5000", citation = "§2" }]\n'
     'arithmetic = "x"\n', "needs disagree"),
    (INCONSISTENT + EVIDENCE.split("arithmetic")[0], "needs arithmetic"),
    (EVIDENCE, "belong to an inconsistent case"),
])
def test_an_inconsistent_case_carries_the_printed_values_and_the_arithmetic(tmp_path, extra, message) -> None:
    path = casebook(tmp_path, one_case("paper = 9000\ntolerance = { relative = 0.01 }\n", extra))
    with pytest.raises(CatalogueError, match=message):
        load_casebook(path)


def test_an_inconsistent_case_with_its_evidence_shows_it_in_every_format(tmp_path) -> None:
    path = str(casebook(tmp_path, one_case("paper = 9000\ntolerance = { relative = 0.01 }\n",
                                           INCONSISTENT + EVIDENCE)))
    (result,) = run_casebooks([path])
    assert result.verdict == "inconsistent"
    assert result.case.disagree == (("9000", "§1"), ("1000/s and 5 s", "§2"))
    text = CliRunner().invoke(cli, ["validate", path], env={"COLUMNS": "80"}).output
    assert "printed: 9000 (§1)" in text and "arithmetic: 1000/s × 5 s = 5000, not 9000" in text
    case = json.loads(CliRunner().invoke(cli, ["validate", path, "--format", "json"]).output)["cases"][0]
    assert case["disagree"] == [{"value": "9000", "citation": "§1"},
                                {"value": "1000/s and 5 s", "citation": "§2"}]


TWICE = '''
[[case]]
id = "a"
quantity = "littles_law.number_in_system"
citation = "§1"
inputs = { throughput = 1000, response_time = "5s" }
paper = 5000
tolerance = { relative = 0.01 }
STEP_A
[[case]]
id = "b"
quantity = "littles_law.number_in_system"
citation = "§1, again"
inputs = { throughput = 500, response_time = "10s" }
paper = 5000
tolerance = { relative = 0.01 }
STEP_B
'''


@pytest.mark.parametrize(("step_a", "step_b"), [("", ""), ('step = "x"', ""), ('step = "x"', 'step = "x"')])
def test_one_printed_value_judged_twice_needs_two_different_steps(tmp_path, step_a, step_b) -> None:
    body = TWICE.replace("STEP_A", step_a).replace("STEP_B", step_b)
    with pytest.raises(CatalogueError, match="cases a, b are all judged against the printed value 5000"):
        load_casebook(casebook(tmp_path, body))


def test_one_printed_value_may_support_two_cases_that_name_different_model_steps(tmp_path) -> None:
    body = TWICE.replace("STEP_A", 'step = "Little\'s law"').replace("STEP_B", 'step = "the other step"')
    steps = [case.step for case in load_casebook(casebook(tmp_path, body))]
    assert steps == ["Little's law", "the other step"]


TABLE_TWICE = '''
[[table]]
id = "t"
citation = "Table 1"
columns = ["20 km", "40 km"]
keys = ["20km", "40km"]
unit = "ms"
units = { distance = "1" }
rows.distance = ["20km", "40km"]
rows.DISC = [0.5, 0.7]

[[table.rule]]
id = "growth"
quantity = "distance_growth.time_at_distance"
inputs = { time_at_zero = "0.3ms", distance = { row = "distance" }, round_trips = 1 }
paper = { row = "DISC" }
tolerance = { absolute = 0.05 }
STEP_A
[[table.rule]]
id = "again"
quantity = "distance_growth.time_at_distance"
inputs = { time_at_zero = "0.3ms", distance = { row = "distance" }, round_trips = 1 }
paper = { row = "DISC" }
tolerance = { absolute = 0.05 }
STEP_B
'''


def test_one_printed_cell_judged_by_two_rules_is_refused_unless_each_names_its_step(tmp_path) -> None:
    message = "t-growth-20km, t-again-20km are all judged against cell 'DISC'"
    with pytest.raises(CatalogueError, match=message):
        load_casebook(casebook(tmp_path, TABLE_TWICE.replace("STEP_A", "").replace("STEP_B", "")))
    body = TABLE_TWICE.replace("STEP_A", 'step = "one"').replace("STEP_B", 'step = "two"')
    assert len(load_casebook(casebook(tmp_path, body))) == 4


def test_a_slip_in_a_printed_input_the_case_corrects_is_a_paper_slip(tmp_path) -> None:
    # the printed 2000/s is a slip for 1000/s; the case takes 1000/s and matches the printed 5000
    (result,) = run_casebooks([str(casebook(tmp_path, one_case(
        "paper = 5000\ntolerance = { relative = 0.01 }\n",
        'slip = "the rate is printed 2000/s, the members added: 1000/s"\nrecomputed = 5000\n')))])
    assert result.verdict == "paper-slip"


@pytest.mark.parametrize("coverage", ['coverage = { statements = 0, not_encoded = [] }',
                                      'coverage = { statements = 3, not_encoded = [1, 1] }',
                                      'coverage = { statements = 3 }', 'coverage = 0.9'])
def test_a_malformed_coverage_is_refused(tmp_path, coverage) -> None:
    path = tmp_path / "demo.toml"
    path.write_text(HEADER + coverage + "\n" + one_case("paper = 5000\ntolerance = { relative = 0.01 }\n"),
                    encoding="utf-8")
    with pytest.raises(CatalogueError, match="coverage"):
        load_casebook(path)


def test_coverage_counts_the_statements_not_encoded(tmp_path) -> None:
    path = tmp_path / "demo.toml"
    path.write_text(HEADER + 'coverage = { statements = 4, not_encoded = [2, "3b"] }\n'
                    + one_case("paper = 5000\ntolerance = { relative = 0.01 }\n"), encoding="utf-8")
    assert load_casebook(path)[0].coverage == (2, 4)
