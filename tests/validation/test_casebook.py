"""Casebooks: loading, verdicts, and `qmodel validate` over the shipped studies."""

import json

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.errors import CatalogueError
from qmodel.validation.casebook import load_casebook, shipped_casebooks
from qmodel.validation.judge import run_casebooks

HEADER = 'study = "demo.txt"\ntitle = "Demo"\n'
LITTLE = 'quantity = "littles_law.number_in_system"\ninputs = { throughput = 1000, response_time = "5s" }\n'


def casebook(tmp_path, body: str):
    path = tmp_path / "demo.toml"
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def verdict_of(tmp_path, case: str, quantity: str = LITTLE):
    """The one result of a casebook holding one case: ``quantity`` (and inputs), then ``case``."""
    path = casebook(tmp_path, f'[[case]]\nid = "c"\ncitation = "§1"\n{quantity}{case}')
    (result,) = run_casebooks([str(path)])
    return result


def test_within_tolerance_is_ok(tmp_path) -> None:
    result = verdict_of(tmp_path, "paper = 5000\ntolerance = { relative = 0.001 }\n")
    assert result.verdict == "ok"
    assert result.computed == pytest.approx(5000)


def test_outside_tolerance_is_a_miss_with_its_deviation(tmp_path) -> None:
    result = verdict_of(tmp_path, "paper = 5100\ntolerance = { relative = 0.01 }\n")
    assert result.verdict == "miss"
    assert result.deviation == pytest.approx(-100 / 5100)


def test_absolute_tolerance_reports_an_absolute_deviation(tmp_path) -> None:
    result = verdict_of(tmp_path, "paper = 5003\ntolerance = { absolute = 5 }\n")
    assert result.verdict == "ok"
    assert result.deviation == pytest.approx(-3)


def test_printed_range_is_ok_when_the_model_falls_inside(tmp_path) -> None:
    result = verdict_of(tmp_path, "paper = [4000, 6000]\ntolerance = { relative = 0.0 }\n")
    assert result.verdict == "ok" and result.deviation == 0


def test_declared_slip_matching_the_recomputed_value_is_a_paper_slip(tmp_path) -> None:
    result = verdict_of(
        tmp_path,
        'paper = 5500\nslip = "5 × 1000 misprinted"\nrecomputed = 5000\ntolerance = { relative = 0.001 }\n',
    )
    assert result.verdict == "paper-slip"
    assert "recomputed 5000" in result.remark


def test_declared_slip_the_model_does_not_reproduce_is_a_miss(tmp_path) -> None:
    result = verdict_of(
        tmp_path, 'paper = 5500\nslip = "?"\nrecomputed = 5200\ntolerance = { relative = 0.001 }\n'
    )
    assert result.verdict == "miss"


def test_slip_declared_where_the_model_agrees_with_the_paper_is_a_miss(tmp_path) -> None:
    result = verdict_of(
        tmp_path, 'paper = 5000\nslip = "?"\nrecomputed = 5200\ntolerance = { relative = 0.001 }\n'
    )
    assert result.verdict == "miss"
    assert "calls a slip" in result.remark


def test_calibration_row_is_marked_calibrated(tmp_path) -> None:
    result = verdict_of(
        tmp_path, 'paper = 5000\ncalibrated = "fitted the lag"\ntolerance = { relative = 0.001 }\n'
    )
    assert result.verdict == "calibrated"


def test_paper_value_in_another_unit_is_compared_in_that_unit(tmp_path) -> None:
    result = verdict_of(
        tmp_path,
        'paper = 0.0007\nunit = "s"\ntolerance = { relative = 0.001 }\n',
        'quantity = "transaction_elongation.round_trip_time"\n'
        'inputs = { cf_requests = 0, sync_writes = 0, distance = "70km" }\n',
    )
    assert result.verdict == "ok"


def test_model_function_quantity_is_supported(tmp_path) -> None:
    result = verdict_of(
        tmp_path,
        'paper = 10\nunit = "us/km"\ntolerance = { absolute = 0.0001 }\n',
        'quantity = "distance_slope.slope_per_round_trip"\n'
        'inputs = { distance = ["0km", "100km"], values = ["300us", "1.3ms"], '
        "round_trips = 1 }\n",
    )
    assert result.verdict == "ok"


@pytest.mark.parametrize(
    "quantity",
    ["os:system", "os.system", "qmodel.studies.distance:fit_distance_table", "__import__.system", "eval.x"],
)
def test_casebook_naming_code_outside_the_registry_is_refused_before_it_runs(tmp_path, quantity) -> None:
    marker = tmp_path / "ran"
    path = casebook(
        tmp_path,
        f'[[case]]\nid = "c"\ncitation = "§1"\nquantity = "{quantity}"\n'
        f'inputs = {{ command = "touch {marker}" }}\npaper = 0\n'
        "tolerance = { absolute = 1 }\n",
    )
    with pytest.raises(CatalogueError, match="neither a catalogue entry nor a registered"):
        run_casebooks([str(path)])
    assert not marker.exists()


def test_model_refusing_the_inputs_is_a_miss_that_says_why(tmp_path) -> None:
    result = verdict_of(
        tmp_path,
        "paper = 5\ntolerance = { relative = 0.01 }\n",
        'quantity = "mm1.response_time"\ninputs = { arrival_rate = 2000, service_time = 1 }\n',
    )
    assert result.verdict == "miss"
    assert "unstable" in result.remark


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '[[case]]\nid = "c"\n' + LITTLE + "paper = 1\ntolerance = { relative = 0.1 }\n",
            "missing 'citation'",
        ),
        (
            '[[case]]\nid = "c"\ncitation = "x"\n' + LITTLE + "paper = 1\ntolerance = 0.1\n",
            "tolerance must be",
        ),
        (
            '[[case]]\nid = "c"\ncitation = "x"\nquantity = "mm9.x"\npaper = 1\n'
            "tolerance = { relative = 0.1 }\n",
            "unknown formula 'mm9'",
        ),
        (
            '[[case]]\nid = "c"\ncitation = "x"\n'
            + LITTLE
            + 'paper = 1\nslip = "s"\ntolerance = { relative = 0.1 }\n',
            "'slip' and 'recomputed' go together",
        ),
        ("", "no \\[\\[case\\]\\] entries"),
    ],
)
def test_malformed_casebook_names_file_and_case(tmp_path, body: str, message: str) -> None:
    with pytest.raises(CatalogueError, match=message):
        load_casebook(casebook(tmp_path, body))


def test_every_shipped_casebook_names_its_study_file() -> None:
    assert set(shipped_casebooks()) >= {
        "gdps-pprc-100km-2006",
        "ztpf-io-performance-2008",
        "global-mirror-ds8000-2009",
    }


def test_every_miss_in_the_shipped_casebooks_is_explained() -> None:
    result = CliRunner().invoke(cli, ["validate", "--format", "json"])
    payload = json.loads(result.output)
    misses = [case for case in payload["cases"] if case["verdict"] == "miss"]
    unexplained = [case["case"] for case in misses if not case["explained"]]
    assert unexplained == []
    assert result.exit_code == 0


def test_shipped_casebooks_record_the_gdps_paper_slips() -> None:
    results = {r.case.id: r for r in run_casebooks(["gdps-pprc-100km-2006"])}
    assert results["appendix-b-subchannels-required"].verdict == "paper-slip"
    assert results["appendix-b-subchannels-required"].computed == pytest.approx(3.943, abs=1e-3)
    assert results["appendix-b-links-required"].verdict == "paper-slip"


def test_validate_exits_1_when_a_case_misses(tmp_path) -> None:
    path = casebook(
        tmp_path,
        f'[[case]]\nid = "c"\ncitation = "§1"\n{LITTLE}paper = 9000\ntolerance = {{ relative = 0.001 }}\n',
    )
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 1
    assert "miss" in result.output


def test_validate_csv_carries_the_citations() -> None:
    result = CliRunner().invoke(cli, ["validate", "gdps-pprc-100km-2006", "--format", "csv"])
    header = result.output.splitlines()[0]
    assert header.startswith("casebook,case,quantity,paper,model,unit,deviation,verdict")
    assert "6882 / 300 = 22.94" in result.output


SOLVE = 'quantity = "cgft.bandwidth"\ninputs = { cycle_cost = "4s", write_rate = "250MB/s" }\n'


def test_a_target_case_gives_the_input_at_which_the_output_reaches_the_target(tmp_path) -> None:
    # global-mirror-ds8000-2009 §4.3: a 6 s CGFT at 250 MB/s with a 4 s cycle cost is a link at 1/3.
    result = verdict_of(
        tmp_path, 'target = { cgft = "6s" }\npaper = 750\ntolerance = { relative = 1e-9 }\n', SOLVE
    )
    assert result.verdict == "ok"
    assert result.case.unit == "MB/s"
    assert result.computed == pytest.approx(750, rel=1e-9)


def test_a_target_case_is_computed_in_the_case_unit(tmp_path) -> None:
    result = verdict_of(
        tmp_path,
        'target = { cgft = "6000ms" }\nunit = "GB/s"\npaper = 0.75\ntolerance = { relative = 1e-9 }\n',
        SOLVE,
    )
    assert result.computed == pytest.approx(0.75, rel=1e-9)


def test_a_case_may_take_a_solved_case_value(tmp_path) -> None:
    path = casebook(
        tmp_path,
        '[[case]]\nid = "fit"\ncitation = "§1"\n'
        + SOLVE
        + 'target = { cgft = "6s" }\ncalibrated = "fitted on 6 s"\ntolerance = { relative = 0 }\n'
        '[[case]]\nid = "back"\ncitation = "§2"\nquantity = "cgft.cgft"\n'
        'inputs = { cycle_cost = "4s", write_rate = "250MB/s", bandwidth = { case = "fit" } }\n'
        "paper = 6\ntolerance = { relative = 1e-9 }\n",
    )
    fit, back = run_casebooks([str(path)])
    assert back.verdict == "ok" and back.case.depends_on == ("fit",)
    assert fit.predicts == ("back",)


def test_a_target_the_model_cannot_reach_is_a_miss_that_says_why(tmp_path) -> None:
    result = verdict_of(
        tmp_path, 'target = { cgft = "3s" }\npaper = 750\ntolerance = { relative = 0.01 }\n', SOLVE
    )
    assert result.verdict == "miss" and not result.explained
    assert "not reachable" in result.remark


@pytest.mark.parametrize(
    ("quantity", "target", "message"),
    [
        (SOLVE, "target = { utilisation = 0.5 }", "target must be { OUTPUT = value } for one output of cgft"),
        (SOLVE, 'target = { cgft = "6s", utilization = 0.5 }', "target must be"),
        (
            'quantity = "cgft.utilization"\ninputs = { cycle_cost = "4s", write_rate = "250MB/s" }\n',
            'target = { cgft = "6s" }',
            "the quantity names the input of cgft solved for",
        ),
        (
            'quantity = "cgft.bandwidth"\n'
            'inputs = { cycle_cost = "4s", write_rate = 250, bandwidth = 700 }\n',
            'target = { cgft = "6s" }',
            "left out of the inputs",
        ),
        (
            'quantity = "distance_slope.slope"\ninputs = { round_trips = 1 }\n',
            "target = { intercept = 1 }",
            "a target needs a catalogue entry to solve",
        ),
    ],
)
def test_a_malformed_target_case_is_refused_when_the_casebook_loads(
    tmp_path, quantity, target, message
) -> None:
    path = casebook(
        tmp_path,
        f'[[case]]\nid = "c"\ncitation = "§1"\n{quantity}{target}\n'
        "paper = 1\ntolerance = { relative = 0.01 }\n",
    )
    with pytest.raises(CatalogueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        load_casebook(path)


# ---- a casebook is data a user can write: bad values, inconsistent evidence, one number one case ----


def one_case(paper_and_tolerance: str, extra: str = "") -> str:
    return f'[[case]]\nid = "c"\ncitation = "§1"\n{LITTLE}{paper_and_tolerance}{extra}'


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("paper = nan\ntolerance = { relative = 0.01 }\n", "paper = nan"),
        ("paper = [nan, 6000]\ntolerance = { relative = 0.01 }\n", "paper = \\[nan, 6000\\]"),
        ("paper = [6000, 4000]\ntolerance = { relative = 0.01 }\n", "low <= high"),
        ("paper = inf\ntolerance = { relative = 0.01 }\n", "paper = inf"),
        ("paper = 5000\ntolerance = { relative = -0.01 }\n", "tolerance relative = -0.01"),
        ("paper = 5000\ntolerance = { absolute = nan }\n", "tolerance absolute = nan"),
        ("paper = 5000\ntolerance = { absolute = inf }\n", "tolerance absolute = inf"),
        ('paper = 5000\ntolerance = { relative = 0.01 }\nslip = "s"\nrecomputed = nan\n', "recomputed = nan"),
    ],
)
def test_a_bad_value_in_a_casebook_is_one_line_naming_it_with_exit_2(tmp_path, values, message) -> None:
    path = casebook(tmp_path, one_case(values))
    with pytest.raises(CatalogueError, match=message):
        load_casebook(path)
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_nan_paper_value_is_refused_not_taken_for_a_fitted_parameter(tmp_path) -> None:
    path = casebook(
        tmp_path,
        one_case("paper = nan\ntolerance = { relative = 0.01 }\n", 'calibrated = "fits something"\n'),
    )
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
EVIDENCE = (
    'disagree = [{ value = "9000", citation = "§1" },\n'
    '            { value = "1000/s and 5 s", citation = "§2" }]\n'
    'arithmetic = "1000/s × 5 s = 5000, not 9000"\n'
)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (INCONSISTENT, "needs disagree"),
        (
            INCONSISTENT + 'disagree = [{ value = "9000", citation = "§1" }]\narithmetic = "x"\n',
            "needs disagree",
        ),
        (
            INCONSISTENT + 'disagree = [{ value = "9000" }, { value = "5000", citation = "§2" }]\n'
            'arithmetic = "x"\n',
            "needs disagree",
        ),
        (INCONSISTENT + EVIDENCE.split("arithmetic")[0], "needs arithmetic"),
        (EVIDENCE, "belong to an inconsistent case"),
    ],
)
def test_an_inconsistent_case_carries_the_printed_values_and_the_arithmetic(tmp_path, extra, message) -> None:
    path = casebook(tmp_path, one_case("paper = 9000\ntolerance = { relative = 0.01 }\n", extra))
    with pytest.raises(CatalogueError, match=message):
        load_casebook(path)


def test_an_inconsistent_case_with_its_evidence_shows_it_in_every_format(tmp_path) -> None:
    path = str(
        casebook(
            tmp_path, one_case("paper = 9000\ntolerance = { relative = 0.01 }\n", INCONSISTENT + EVIDENCE)
        )
    )
    (result,) = run_casebooks([path])
    assert result.verdict == "inconsistent"
    assert result.case.disagree == (("9000", "§1"), ("1000/s and 5 s", "§2"))
    text = CliRunner().invoke(cli, ["validate", path], env={"COLUMNS": "80"}).output
    assert "printed: 9000 (§1)" in text and "arithmetic: 1000/s × 5 s = 5000, not 9000" in text
    case = json.loads(CliRunner().invoke(cli, ["validate", path, "--format", "json"]).output)["cases"][0]
    assert case["disagree"] == [
        {"value": "9000", "citation": "§1"},
        {"value": "1000/s and 5 s", "citation": "§2"},
    ]


TWICE = """
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
"""


@pytest.mark.parametrize(("step_a", "step_b"), [("", ""), ('step = "x"', ""), ('step = "x"', 'step = "x"')])
def test_one_printed_value_judged_twice_needs_two_different_steps(tmp_path, step_a, step_b) -> None:
    body = TWICE.replace("STEP_A", step_a).replace("STEP_B", step_b)
    with pytest.raises(CatalogueError, match="cases a, b are all judged against the printed value 5000"):
        load_casebook(casebook(tmp_path, body))


def test_one_printed_value_may_support_two_cases_that_name_different_model_steps(tmp_path) -> None:
    body = TWICE.replace("STEP_A", 'step = "Little\'s law"').replace("STEP_B", 'step = "the other step"')
    steps = [case.step for case in load_casebook(casebook(tmp_path, body))]
    assert steps == ["Little's law", "the other step"]


TABLE_TWICE = """
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
"""


def test_one_printed_cell_judged_by_two_rules_is_refused_unless_each_names_its_step(tmp_path) -> None:
    message = "t-growth-20km, t-again-20km are all judged against cell 'DISC'"
    with pytest.raises(CatalogueError, match=message):
        load_casebook(casebook(tmp_path, TABLE_TWICE.replace("STEP_A", "").replace("STEP_B", "")))
    body = TABLE_TWICE.replace("STEP_A", 'step = "one"').replace("STEP_B", 'step = "two"')
    assert len(load_casebook(casebook(tmp_path, body))) == 4


def test_a_slip_in_a_printed_input_the_case_corrects_is_a_paper_slip(tmp_path) -> None:
    # the printed 2000/s is a slip for 1000/s; the case takes 1000/s and matches the printed 5000
    (result,) = run_casebooks(
        [
            str(
                casebook(
                    tmp_path,
                    one_case(
                        "paper = 5000\ntolerance = { relative = 0.01 }\n",
                        'slip = "the rate is printed 2000/s, the members added: 1000/s"\nrecomputed = 5000\n',
                    ),
                )
            )
        ]
    )
    assert result.verdict == "paper-slip"


@pytest.mark.parametrize(
    "coverage",
    [
        "coverage = { statements = 0, not_encoded = [] }",
        "coverage = { statements = 3, not_encoded = [1, 1] }",
        "coverage = { statements = 3 }",
        "coverage = 0.9",
    ],
)
def test_a_malformed_coverage_is_refused(tmp_path, coverage) -> None:
    path = tmp_path / "demo.toml"
    path.write_text(
        HEADER + coverage + "\n" + one_case("paper = 5000\ntolerance = { relative = 0.01 }\n"),
        encoding="utf-8",
    )
    with pytest.raises(CatalogueError, match="coverage"):
        load_casebook(path)


def test_coverage_counts_the_statements_not_encoded(tmp_path) -> None:
    path = tmp_path / "demo.toml"
    path.write_text(
        HEADER
        + 'coverage = { statements = 4, not_encoded = [2, "3b"] }\n'
        + one_case("paper = 5000\ntolerance = { relative = 0.01 }\n"),
        encoding="utf-8",
    )
    assert load_casebook(path)[0].coverage == (2, 4)
