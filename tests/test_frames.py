"""Results in pandas and notebooks: qmodel.batch.run on a DataFrame, to_frame() and _repr_html_ on every
result a user meets in Python, and the CLI's quick path without pandas."""

import subprocess
import sys
from html import escape

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.batch import run
from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError
from qmodel.networks import network, solve
from qmodel.scenario import load_scenario, solve_scenario
from qmodel.scenario.files import resolve_scenario
from qmodel.validation.report import validation_report


def test_run_gives_each_good_row_as_alone_and_names_each_bad_row():
    table = pd.DataFrame(
        {
            "Arrival Rate (1/s)": [700, 800, None, 2000, 800],
            "service_time [us]": [1000, "1ms", 1000, 1000, "x"],
            "label": list("abcde"),
        }
    )
    frame = run("mm1", table)
    assert list(frame.columns) == [
        "Arrival Rate (1/s)",
        "service_time [us]",
        "label",
        "utilization[ratio]",
        "waiting_time[ms]",
        "response_time[ms]",
        "number_in_queue",
        "number_in_system",
        "error",
    ]
    for row, rate in ((0, 700), (1, 800)):
        assert frame["response_time[ms]"][row] == float(
            calc("mm1", arrival_rate=rate, service_time=1.0).response_time
        )
        assert frame["error"][row] == ""
    assert frame["error"][2].startswith("arrival_rate = empty (missing cell)")
    assert frame["error"][3].startswith("utilization = 2 (the queue is unstable")
    assert frame["error"][4].startswith("service_time = 'x'")
    assert np.isnan(frame["response_time[ms]"][2:]).all()
    assert table.shape == (5, 3)  # the caller's DataFrame is left as it was


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 900), st.floats(0.01, 1.0)), min_size=1, max_size=20))
def test_run_on_a_mapping_equals_each_row_computed_alone(rows):
    frame = run("mm1", {"arrival_rate": [r for r, _ in rows], "service_time": [s for _, s in rows]})
    for index, (rate, service) in enumerate(rows):
        try:
            alone = float(calc("mm1", arrival_rate=rate, service_time=service).response_time)
        except InputError as error:
            assert frame["error"][index] == error.message()
        else:
            assert frame["response_time[ms]"][index] == alone and frame["error"][index] == ""


def test_run_takes_settings_for_inputs_no_column_gives_and_refuses_a_missing_column():
    frame = run("mm1", {"arrival_rate": [800]}, service_time=1.0)
    assert frame["utilization[ratio]"][0] == pytest.approx(0.8)
    with pytest.raises(InputError, match="missing required column"):
        run("mm1", {"arrival_rate": [800]})
    with pytest.raises(InputError, match="columns of different lengths"):
        run("mm1", {"arrival_rate": [800, 700], "service_time": [1]})


def test_run_keeps_each_rows_warnings_and_says_so_once():
    with pytest.warns(UserWarning, match=r"^row 2: write_rate - bandwidth = 300 MB/s"):
        frame = run("link_sizing", {"write_rate": [50, 500], "link_bandwidth": [100, 100], "links": [2, 2]})
    alone = calc("link_sizing", write_rate=500, link_bandwidth=100, links=2)
    assert frame.attrs["warnings"] == [f"row 2: {alone.warnings[0]}"]
    assert frame["error"].tolist() == ["", ""]  # the answer stands


def test_a_formula_result_is_a_frame_with_units_in_its_column_names_and_a_notebook_table():
    result = calc("mm1", arrival_rate=[700, 800], service_time=1.0)
    frame = result.to_frame()
    assert list(frame.columns)[:3] == ["arrival_rate[1/s]", "service_time[ms]", "utilization[ratio]"]
    assert frame["response_time[ms]"].tolist() == result.response_time.tolist()
    html = result._repr_html_()
    assert "<th>response_time[ms]</th>" in html and "<td>3.33333</td>" in html


def test_si_results_name_si_units():
    frame = calc("mm1", units="si", arrival_rate=800, service_time=0.001).to_frame()
    assert "service_time[s]" in frame.columns and frame["response_time[s]"][0] == pytest.approx(0.005)


def test_a_formula_result_shows_its_warnings():
    result = calc("link_sizing", write_rate=500, link_bandwidth=100, links=2)
    assert result.warnings and all(escape(f"warning: {w}") in result._repr_html_() for w in result.warnings)


def test_a_network_result_is_a_frame_per_class_and_station():
    result = solve(
        network(
            [["5ms", "8ms"]],
            servers=[1, 1],
            population=[10],
            think_time=["1s"],
            names=["cpu", "disk"],
            time_unit="ms",
        )
    )
    frame = result.to_frame()
    assert list(frame["station"]) == ["cpu", "disk"] and "residence_time[ms]" in frame.columns
    assert "<th>throughput[1/s]</th>" in result._repr_html_()


def test_a_scenario_result_shows_its_goal_line_and_its_rows():
    result = solve_scenario(load_scenario(resolve_scenario("gdps-env2")), np.array([0.0, 20e3]))
    frame = result.to_frame()
    assert frame.shape[0] == 6 and list(frame["member"][:3]) == ["G1P1", "G1P2", "all"]
    html = result._repr_html_()
    assert "goal: 90% of transactions within 125 ms" in html and "<th>response_time[ms]</th>" in html


def test_a_validation_report_is_a_frame_of_cases_under_its_summary():
    report = validation_report(["ztpf-io-performance-2008"])
    frame = report.to_frame()
    assert len(frame) == len(report) and {"case", "verdict", "deviation"} <= set(frame.columns)
    assert "predictions" in report._repr_html_()


def test_the_quick_path_and_the_batch_cli_never_import_pandas(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time\n800,1\n", encoding="utf-8")
    probe = (
        "import sys; from qmodel.cli import cli\n"
        "calc = ['calc', 'mm1', 'arrival_rate=800', 'service_time=1']\n"
        "for args in (calc, ['batch', 'mm1', sys.argv[1]]):\n"
        "    try: cli.main(args)\n"
        "    except SystemExit: pass\n"
        "print(sorted(m for m in ('pandas', 'python_calamine', 'openpyxl') if m in sys.modules))"
    )
    output = subprocess.run(
        [sys.executable, "-c", probe, str(source)], capture_output=True, text=True, timeout=120
    ).stdout
    assert output.strip().splitlines()[-1] == "[]"
