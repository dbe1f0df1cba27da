"""A band on every scenario answer: the union of the prediction intervals of the answer and of the
points of its [band] (each value widened by the model's own error, measured on Environment 3).

What a planner is promised: the band holds the answer; a scenario without one says why; a band point
is checked as a --variants override is; JSON and CSV carry NAME_low and NAME_high beside each value,
the table the band's low and high on rows under each answer, within 80 columns; --max-distance its
band and what breaks the goal at each end; and on the study's prediction rows the measured value lies
in the band (the honesty check).
"""

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.frames import end_key, split_key
from qmodel.output import format_number
from qmodel.scenario.band import Banded, load_banded, max_distance_banded, solve_banded
from qmodel.scenario.compose import refuse_huge
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.goal import TOLERANCE, max_distance
from qmodel.scenario.spec import load_scenario
from qmodel.validation.band_coverage import COVERAGE_TARGET, Covered, band_coverage, coverage, prediction_rows

ENV2 = resolve_scenario("gdps-env2")
BAND_TABLE = re.compile(r"^\[band\]\n(?:(?!\[).*\n)*", re.MULTILINE)  # [band] and its lines to the next


def run(args: list[str], columns: str = "80"):
    return CliRunner().invoke(cli, ["scenario", *args], env={"COLUMNS": columns})


def env2_with_band(tmp_path, band: str | None) -> str:
    """Environment 2's file with its [band] replaced by ``band`` (TOML text), or taken out (None)."""
    text = BAND_TABLE.sub("", ENV2.read_text(encoding="utf-8"))
    path = tmp_path / "env2.toml"
    path.write_text(text + ("" if band is None else f"\n{band}\n"), encoding="utf-8")
    return str(path)


def points(*tables: str) -> str:
    return '[band]\nmethod = "test points"\npoints = [' + ", ".join(tables) + "]"


def table_rows(text: str) -> list[list[str]]:
    """The cells of every table row printed, a cell wrapped onto more lines joined again (a line whose
    key columns are empty continues the row above; a band's row says "low" or "high" in the second)."""
    rows: list[list[str]] = []
    for line in text.splitlines():
        if "│" not in line:
            continue
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if rows and not cells[0] and not cells[1]:
            rows[-1] = [f"{above} {below}".strip() for above, below in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    return rows


def beside(keys: list[str], name: str) -> bool:
    """The band's low and high ends of ``name`` are the keys just after it, in that order."""
    return keys.index(end_key(name, "low")) == keys.index(name) + 1 == keys.index(end_key(name, "high")) - 1


def value_names(record: dict) -> list[str]:
    return [name for name in record if end_key(name, "low") in record]


# --- the band holds the answer ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gdps-env1", "gdps-env2", "gdps-env3"])
def test_the_shipped_bands_hold_the_answer_at_every_distance_and_member(name: str) -> None:
    result = solve_banded(load_banded(resolve_scenario(name)), np.linspace(0, 150e3, 16))
    assert result.band, f"{name} ships a [band]"
    values = result.record_values()
    for quantity, (low, high) in result.band_values().items():
        answered = ~np.isnan(values[quantity])
        assert holds(low[answered], values[quantity][answered], high[answered]), quantity


def holds(low: np.ndarray, value: np.ndarray, high: np.ndarray) -> bool:
    """Every value within its band; an end open toward a point with no answer (NaN) holds any value."""
    return bool(((np.isnan(low) | (low <= value)) & (np.isnan(high) | (value <= high))).all())


def test_where_a_band_point_has_no_answer_the_band_is_open_at_its_end_never_closed_by_the_answer() -> None:
    # Environment 3 with its band's lower end moved to 3,000 lockable items: that point thrashes at 70 km
    shipped = load_banded(resolve_scenario("gdps-env3"))
    crowded = replace(shipped.points[0], lockable_items=3000.0)
    result = solve_banded(Banded(shipped.scenario, (crowded, *shipped.points[1:])), np.array([20e3, 70e3]))
    bands = result.band_values()
    some_point_thrashes = sum(point.thrashing for point in result.band).astype(bool)
    assert some_point_thrashes.tolist() == [False, True]
    assert not np.isnan(bands["response_time[ms]"][1][:, 0]).any()
    assert np.isnan(bands["response_time[ms]"][1][:, 1]).all()   # longer times: open
    assert np.isnan(bands["share_within_goal[%]"][0][:, 1]).all()    # fewer within the goal: open
    assert not np.isnan(bands["response_time[ms]"][0][:, 1]).any()  # the other end stands


@given(items=st.floats(300, 3000), span=st.floats(0.01, 0.5))
def test_a_band_holds_the_answer_and_the_answer_at_each_of_its_points(items: float, span: float) -> None:
    scenario = load_scenario(ENV2)
    point = replace(scenario, lockable_items=items, lock_span=span)
    result = solve_banded(Banded(scenario, (point,)), np.array([0.0, 40e3, 100e3]))
    at_point = result.band[0].record_values()
    for quantity, (low, high) in result.band_values().items():
        for solved in (result.record_values()[quantity], at_point[quantity]):
            answered = ~np.isnan(solved)
            assert holds(low[answered], solved[answered], high[answered])


def test_each_point_solved_over_every_distance_at_once_gives_what_each_distance_alone_gives() -> None:
    banded = load_banded(ENV2)
    distances = np.array([0.0, 40e3, 100e3])
    together = solve_banded(banded, distances).band_values()
    for column, distance in enumerate(distances):
        alone = solve_banded(banded, np.array([distance])).band_values()
        for quantity, ends in alone.items():
            for end, value in zip(together[quantity], ends, strict=True):
                np.testing.assert_allclose(end[:, column], value[:, 0], rtol=1e-9, err_msg=quantity)


def test_a_band_too_large_to_compute_is_refused_before_any_work_with_its_estimate() -> None:
    def crowded(scenario):
        return replace(scenario, members=tuple(replace(m, terminals=10_000) for m in scenario.members))

    banded = load_banded(ENV2)
    distances = np.linspace(0, 100e3, 250)  # the answer alone is within the limits, with its band not
    refuse_huge(crowded(banded.scenario), distances.size)  # alone: no refusal
    with pytest.raises(InputError, match=f"each solved {2 * (len(banded.points) + 1)} times") as refused:
        solve_banded(Banded(crowded(banded.scenario), tuple(map(crowded, banded.points))), distances)
    assert "too large to compute" in refused.value.message()


def test_a_dotted_key_reads_the_same_quoted_or_as_toml_nests_it(tmp_path) -> None:
    quoted = load_banded(env2_with_band(tmp_path, points('{ "locks.lock_span" = "25%" }')))
    nested = load_banded(env2_with_band(tmp_path, points('{ locks.lock_span = "25%" }')))
    assert quoted.scenario.band == nested.scenario.band
    assert quoted.points[0].lock_span == nested.points[0].lock_span == 0.25


def test_a_point_sets_member_keys_as_the_variants_headers_do(tmp_path) -> None:
    banded = load_banded(env2_with_band(tmp_path, points('{ "member.*.think_time" = "9s" }',
                                                           '{ "member.G1P2.other[ms]" = 12 }')))
    assert [m.think_time for m in banded.points[0].members] == [9.0, 9.0]
    assert banded.points[1].member("G1P2").other == pytest.approx(0.012)


def test_where_a_band_point_has_no_answer_the_band_is_open_there_and_says_so(tmp_path) -> None:
    path = env2_with_band(tmp_path, points('{ "locks.lockable_items" = 2000 }'))  # thrashes at 100 km only
    payload = json.loads(run([path, "--distance", "20km,100km", "--format", "json"]).output)
    missing = {record["distance[km]"]: record["band_points_without_answer"] for record in payload["results"]}
    assert missing == {20.0: 0, 100.0: 1}
    far = [record for record in payload["results"] if record["distance[km]"] == 100.0]
    # the answer never stands in for the missing end: longer times and fewer within the goal are open
    assert all(r["response_time_high[ms]"] is None and r["share_within_goal_low[%]"] is None for r in far)
    assert all(r["response_time_low[ms]"] == r["response_time[ms]"] for r in far)
    printed = run([path, "--distance", "20km,100km", "--no-breakdown"]).output
    table = " ".join(printed.split())
    assert "At 100 km some band point has no response time" in table and "the band is open toward it" in table
    high_at_100km = [row for row in table_rows(printed) if row[1] == "high"][-3:]
    assert all(row[2] == "no answer" for row in high_at_100km)  # longer response times: open


# --- no band, and why ------------------------------------------------------------------------------


def test_a_scenario_without_a_band_shows_none_and_says_why(tmp_path) -> None:
    path = env2_with_band(tmp_path, None)
    table = run([path, "--distance", "70km", "--no-breakdown"])
    assert table.exit_code == 0 and "–" not in table.output
    said = " ".join(table.output.split())
    assert "No band: no fitted parameter of this scenario declares an interval" in said
    payload = json.loads(run([path, "--distance", "70km", "--format", "json"]).output)
    assert payload["band"]["why_none"].startswith("no fitted parameter")
    assert not any(split_key(key)[0].endswith(("_low", "_high"))
                   for record in payload["results"] for key in record)
    spreadsheet = run([path, "--distance", "70km", "--format", "csv"])
    assert "_low" not in spreadsheet.stdout and spreadsheet.stderr.startswith("no band: no fitted parameter")
    seek = json.loads(run([path, "--max-distance", "--format", "json"]).output)
    assert seek["max_distance_low[km]"] is None and "No band: no fitted parameter" in seek["answer"]


# --- a band point is checked as a --variants override ------------------------------------------------


@pytest.mark.parametrize(("point", "named"), [
    ('{ "locks.lockable_itemz" = 650 }', "band.points[1] = locks.lockable_itemz"),
    ('{ "member.G1P9.other" = "5ms" }', "band.points[1] = member.G1P9.other"),
    ('{ "lockable_items" = 650 }', "band.points[1] = lockable_items"),
    ('{ "distance" = "20km" }', "band.points[1] = distance"),
    ('{ "locks.lock_span" = "150%" }', "band.points[1].locks.lock_span = 150%"),
    ('{ "member.G1P1.think_time" = 8.8 }', "band.points[1].member.G1P1.think_time = 8.8"),
])
def test_a_bad_band_point_is_one_line_naming_the_point_and_key_exit_2(tmp_path, point, named) -> None:
    path = env2_with_band(tmp_path, points('{ "locks.lock_span" = "20%" }', point))  # the second point is bad
    result = run([path, "--distance", "70km"])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert named.replace("points[1]", "points[2]") in result.output, result.output


@pytest.mark.parametrize(("error", "named"), [
    ('{ response_time = "100%" }', "band.error.response_time = 100%"),
    ('{ response_time = "-5%" }', "band.error.response_time"),
    ('{ response = "20%" }', "band.error.response = 20% (unknown key)"),
    ('"20%"', "band.error"),
])
def test_a_bad_band_error_is_one_line_naming_the_key_exit_2(tmp_path, error: str, named: str) -> None:
    band = points('{ "locks.lock_span" = "20%" }') + f"\nerror = {error}"
    result = run([env2_with_band(tmp_path, band), "--distance", "70km"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert named in result.output, result.output


def test_a_band_without_points_or_method_is_refused_naming_the_key(tmp_path) -> None:
    no_points = run([env2_with_band(tmp_path, '[band]\nmethod = "x"\npoints = []'), "--distance", "70km"])
    assert no_points.exit_code == 2 and "band.points" in no_points.output
    no_method = run([env2_with_band(tmp_path, '[band]\npoints = [{ "locks.lock_span" = "20%" }]'),
                     "--distance", "70km"])
    assert no_method.exit_code == 2 and "band.method" in no_method.output


# --- what each format carries ------------------------------------------------------------------------


def test_each_solve_is_widened_by_the_declared_error_of_its_kind_the_breakdown_by_none() -> None:
    banded = load_banded(ENV2)
    error = banded.error
    result = solve_banded(banded, np.array([20e3, 70e3, 100e3]))
    solves = [solve.record_values() for solve in (result, *result.band)]
    bands = result.band_values()
    for name, kind in (("response_time[ms]", "response_time"), ("throughput[1/s]", "throughput"),
                       ("cpu_of_one_cp[%]", "throughput"), ("lock_contention[ms]", None)):
        widened = error[kind] if kind else 0.0
        low, high = bands[name]
        values = [solve[name] for solve in solves]
        np.testing.assert_allclose(low, np.min(values, axis=0) * (1 - widened), rtol=1e-12)
        np.testing.assert_allclose(high, np.max(values, axis=0) * (1 + widened), rtol=1e-12)
    assert error["response_time"] > 0.05 and error["throughput"] > 0.001  # measured, not zero


def test_json_and_csv_carry_low_and_high_beside_each_value() -> None:
    payload = json.loads(run(["gdps-env2", "--distance", "20km,70km", "--format", "json"]).output)
    assert payload["band"]["points"] == len(load_banded(ENV2).points) and payload["band"]["method"]
    declared = load_banded(ENV2).error
    assert payload["band"]["error"] == {f"{kind}[%]": pytest.approx(value * 100)
                                        for kind, value in declared.items()}
    expected = {"response_time[ms]", "share_within_goal[%]", "throughput[1/s]", "cpu_busy_of_lpar[%]",
                "cpu_of_one_cp[%]", "lock_contention[ms]", "commit[ms]", "other[ms]"}
    for record in payload["results"]:
        keys = list(record)
        assert expected <= set(value_names(record))
        for name in value_names(record):
            assert beside(keys, name)
    spreadsheet = run(["gdps-env2", "--distance", "20km,70km", "--format", "csv"]).stdout
    header = next(csv.reader(io.StringIO(spreadsheet)))
    for name in expected:
        assert beside(header, name)


def shown_band(record: dict, name: str) -> list[str]:
    """The value, low and high of ``name`` as the table shows numbers (to 0.01)."""
    return [format_number(round(record[key], 2) + 0.0)
            for key in (name, end_key(name, "low"), end_key(name, "high"))]


BANDED_COLUMNS = ("response_time[ms]", "share_within_goal[%]", "throughput[1/s]", "cpu_of_one_cp[%]")
TABLE_ARGS = ["gdps-env2", "--distance", "0km,70km,100km", "--no-breakdown"]


def test_the_table_shows_each_answer_with_its_band_on_rows_of_their_own_within_80_columns() -> None:
    table = run(TABLE_ARGS).output
    assert all(len(line) <= 80 for line in table.splitlines())
    rows = table_rows(table)
    assert all(len(cell.split()) <= 1 for row in rows for cell in row[2:]), "a number wrapped"
    records = json.loads(run([*TABLE_ARGS, "--format", "json"]).output)["results"]
    answers = [index for index, row in enumerate(rows) if row[1] not in ("low", "high")]
    assert len(answers) == len(records)
    columns = [2, 3, 4, 6]  # R, within goal, X, CPU of one CP: the columns of BANDED_COLUMNS
    for record, index in zip(records, answers, strict=True):
        assert [row[1] for row in rows[index + 1 : index + 3]] == ["low", "high"]
        for name, column in zip(BANDED_COLUMNS, columns, strict=True):
            shown = [rows[index + offset][column] for offset in range(3)]
            assert shown == shown_band(record, name), (record["member"], name)
    notes = " ".join(table.split())
    points = len(load_banded(ENV2).points)
    assert (f"low, high: the band, the least and greatest over the answer and {points} points of its band"
            in notes)


@pytest.mark.parametrize("columns", [60, 50])
def test_a_narrow_table_wraps_the_band_and_never_cuts_or_splits_a_number(columns: int) -> None:
    table = run(TABLE_ARGS, str(columns)).output
    assert all(len(line) <= columns for line in table.splitlines()) and "…" not in table
    printed = set(re.findall(r"[\d.]+", table))
    records = json.loads(run([*TABLE_ARGS, "--format", "json"]).output)["results"]
    assert {number for record in records for name in BANDED_COLUMNS for number in shown_band(record, name)
            } <= printed


def test_max_distance_prints_its_band_and_what_breaks_the_goal_at_each_end() -> None:
    result = run(["gdps-env2", "--max-distance"])
    text = " ".join(result.output.split())
    payload = json.loads(run(["gdps-env2", "--max-distance", "--format", "json"]).output)
    low, high = payload["max_distance_low[km]"], payload["max_distance_high[km]"]
    assert low <= payload["max_distance[km]"] <= high
    assert f"Band: {low:.1f} to {high:.1f} km." in text
    for end, distance, words in (("low", low, "pessimistic"), ("high", high, "optimistic")):
        culprit = f"{payload[f'breaking_member_{end}']}'s {payload[f'breaking_component_{end}']}"
        said = text.split(f"t its {words} end (")[1].split(")", 1)[1]
        assert said.startswith(f" the goal holds to {distance:.1f} km, where {culprit} breaks it")
    header = run(["gdps-env2", "--max-distance", "--format", "csv"]).stdout.splitlines()[0].split(",")
    for name in ("max_distance[km]", "breaking_member", "breaking_component"):
        assert beside(header, name)
    for row in ("band low", "band high"):
        assert re.search(rf"{row}\s*│\s*[\d.]+", result.output)


# --- honesty: the measured value lies in the band ----------------------------------------------------


def test_a_printed_value_is_inside_a_band_that_holds_it_ends_included() -> None:
    case = prediction_rows()[0]
    printed = case.paper[0]
    assert Covered(case, printed, printed, printed + 1).inside
    assert Covered(case, printed, printed - 1, printed).inside
    assert not Covered(case, printed, printed + 0.01, printed + 1).inside


def test_the_prediction_rows_are_the_e2e_casebooks_uncalibrated_rows_of_environments_1_and_2() -> None:
    rows = prediction_rows()
    assert len(rows) >= 40
    assert {case.inputs["scenario"] for case in rows} == {"gdps-env1", "gdps-env2"}
    assert not any(case.calibrated for case in rows)


def test_the_band_covers_the_measured_value_on_at_least_80_percent_of_the_prediction_rows() -> None:
    rows = band_coverage()
    share = coverage(rows)
    outside = [row.case.id for row in rows if not row.inside]
    print(f"band coverage: {share:.1%} ({len(rows) - len(outside)} of {len(rows)} prediction rows)")
    assert share >= COVERAGE_TARGET, f"band coverage {share:.1%} of {len(rows)} rows; outside: {outside}"


def test_the_bands_error_rests_on_environment_3_alone_and_is_what_the_shipped_fit_gives() -> None:
    # the model's own error is measured where the lock parameter was fitted, never on the rows the band
    # is judged on; the files carry what python -m qmodel.scenario.calibrate computes from their fit
    from qmodel.scenario.calibrate import (
        _LOG_SCALE,
        LOCK_ROWS,
        SHIPPED_FIT,
        LockFit,
        band_error,
        model_values,
        weighted_residuals,
    )

    assert {row.scenario for row in LOCK_ROWS} == {"gdps-env3"}
    env3 = load_scenario(resolve_scenario("gdps-env3"))  # at the shipped fit
    names = SHIPPED_FIT["names"]
    x = np.array([np.log(getattr(env3, n)) if n in _LOG_SCALE else getattr(env3, n) for n in names])
    values = model_values(env3, LOCK_ROWS)
    fit = LockFit(names, x, np.zeros((len(x), len(x))), weighted_residuals(LOCK_ROWS, values), values, env3)
    error, said = band_error(fit)
    for name in ("gdps-env1", "gdps-env2", "gdps-env3"):
        assert load_scenario(resolve_scenario(name)).band.error == pytest.approx(error, rel=0.01)
    assert "leave-one-out" in said and "Environment 3" in said


@pytest.mark.parametrize("name", ["gdps-env1", "gdps-env2", "gdps-env3"])
def test_the_share_ends_exist_wherever_the_solve_has_a_response_time_and_hold_its_share(name: str) -> None:
    # each end is the solve started at its own fixed point with the goal time scaled: it settles there
    banded = load_banded(resolve_scenario(name))
    result = solve_banded(banded, np.linspace(0, 150e3, 31))
    for solve in (result, *result.band):
        pessimistic, optimistic = solve.share_ends
        answered = ~np.isnan(solve.response_time)
        assert (np.isnan(pessimistic) == ~answered).all() and (np.isnan(optimistic) == ~answered).all()
        assert (pessimistic[answered] <= solve.share_within_goal[answered]).all()
        assert (solve.share_within_goal[answered] <= optimistic[answered]).all()


@settings(max_examples=8, deadline=None)
@given(items=st.floats(1500, 20000), error=st.floats(0.0, 0.5))
def test_the_max_distance_bands_ends_are_the_shortest_and_longest_of_every_candidates_own_seek(
        items: float, error: float) -> None:
    # the search sets a candidate aside once it cannot be an end: the ends are those of searching all
    scenario = load_scenario(ENV2)
    point = replace(scenario, lockable_items=items)
    band = replace(scenario.band, error={"response_time": error})
    banded = Banded(replace(scenario, band=band), (point,))
    sought = max_distance_banded(banded)
    for end, factor, pick in ((sought.low, 1 + error, min), (sought.high, 1 - error, max)):
        seeks = [max_distance(replace(each, goal_time=each.goal_time / factor))
                 for each in (banded.scenario, *banded.points)]
        reach = [np.inf if not seek.member else -1.0 if np.isnan(seek.distance) else seek.distance
                 for seek in seeks]
        expected = seeks[reach.index(pick(reach))]
        assert (end.member, end.component) == (expected.member, expected.component)
        assert end.distance == pytest.approx(expected.distance, abs=TOLERANCE, nan_ok=True)


@pytest.mark.parametrize("args", [["gdps-env2", "--max-distance"], ["gdps-env3", "--distance", "0..100km"]])
def test_the_banded_scenario_path_imports_no_scipy_sympy_or_pandas(args: list[str], tmp_path: Path) -> None:
    # start-up is part of --max-distance's 0.5 s (bench/scenario_speed.py): the heavy libraries stay off;
    # run outside the checkout, so that `python -c` imports the installed qmodel, not the source tree
    import subprocess
    import sys

    script = ("import sys\nfrom qmodel.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
              "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'sympy', 'pandas', 'numba'}),"
              " file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", script, "scenario", *args, "--format", "json"],
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stderr.strip().splitlines()[-1] == "[]"
