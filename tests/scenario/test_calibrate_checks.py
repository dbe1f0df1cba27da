"""A row no free parameter can move is a check of the model, not of the fit (trial 4 of issue 32, D1; the
criterion in :mod:`qmodel.scenario.fit` and docs/background/cross-validation.md): an open member's
throughput (its arrival rate sets it) and a lock wait that repeats the file's measured_wait (met at every
trial by construction) are shown with their residuals and named, but are not rows left over: they
neither shrink s² nor make a parameter "pinned"."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from qmodel.cli import cli
from qmodel.scenario import solve_scenario
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.fit import (
    fit_scenario,
    fit_toml,
    lock_refit,
    model_values,
    moved_rows,
    with_inferred_locks,
)
from qmodel.scenario.measurements import SHARES, SIGMA, Measurement, weighted_residual
from qmodel.scenario.spec import load_scenario

ENV2 = load_scenario("gdps-env2")
FREE = ["member.*.other"]


def opened(scenario):
    """Each member open, its arrival rate the throughput it has closed at 0 km."""
    rates = solve_scenario(scenario, np.array([0.0])).throughput[:, 0]
    return replace(
        scenario,
        members=tuple(
            replace(m, arrival_rate=float(rate), terminals=0, think_time=0.0)
            for m, rate in zip(scenario.members, rates, strict=True)
        ),
    )


def rows_of(scenario, quantities, km=0.0, scale=(1.1, 0.95)):
    """Each member's rows of ``quantities`` at ``km``, the model's values there times ``scale``."""
    rows = [Measurement("mine", m.name, km * 1e3, q, 1.0) for q in quantities for m in scenario.members]
    values = model_values(scenario, rows) * np.tile(scale, len(quantities))
    return [replace(row, value=float(v)) for row, v in zip(rows, values, strict=True)]


def ends(fit) -> list[float]:
    """Every parameter's interval ends (SI), in order."""
    return [end for pair in fit.intervals().values() for end in pair]


def test_an_open_members_throughput_is_a_check_and_changes_no_interval() -> None:
    scenario = opened(ENV2)
    responses = rows_of(scenario, ["response_time"])
    both = responses + rows_of(scenario, ["throughput"], scale=(0.997, 0.998))  # as measured, not as the rate
    alone, checked = fit_scenario(scenario, responses, FREE), fit_scenario(scenario, both, FREE)
    assert ends(checked) == pytest.approx(ends(alone), rel=1e-9)
    assert checked.dof == alone.dof == 0
    assert [row.quantity for row in checked.checks] == ["throughput", "throughput"]
    assert [checked.label(k) for k in checked.values] == [alone.label(k) for k in alone.values]
    assert all(
        label.startswith("weakly identified: no row is left over")
        for label in map(checked.label, checked.values)
    )
    assert any("no free parameter moves them" in note for note in checked.notes())
    assert "2 rows no free parameter moves check the model, not counted" in checked.summary()
    assert fit_toml(checked, "mine.toml", "m.csv").count("counted = false") == 2


def test_a_lock_wait_that_repeats_measured_wait_is_met_by_construction_and_is_no_row_left_over(
    tmp_path: Path,
) -> None:
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8").split("\n[band]")[0]
    text = re.sub(r"(?m)^lockable_items = .*$", 'measured_wait = "1.5ms"\nmeasured_at = "20km"', text)
    (tmp_path / "mine.toml").write_text(text, encoding="utf-8")
    scenario = load_scenario(tmp_path / "mine.toml")  # Environment 2, its lock wait measured at 20 km
    at = with_inferred_locks(scenario)
    responses = rows_of(at, ["response_time"], km=20.0)
    wait = Measurement("mine", "all", 20e3, "lock_contention", scenario.lock_measurement.wait)
    fit = fit_scenario(at, [*responses, wait], FREE, prepare=lock_refit(scenario, FREE))
    alone = fit_scenario(at, responses, FREE, prepare=lock_refit(scenario, FREE))
    assert abs(fit.residuals[-1]) < 1e-6  # met at every trial: the refit infers lockable_items from it
    # not the zero-width intervals of a wait that checked nothing (trial 4: 12.82 ms to 12.82 ms)
    assert ends(fit) == pytest.approx(ends(alone), rel=1e-3)
    assert fit.checks == (wait,) and fit.dof == 0
    assert "pinned" not in [fit.label(k) for k in fit.values]


slopes = arrays(
    float,
    st.tuples(st.integers(1, 6), st.integers(1, 4)),
    elements=st.one_of(st.just(0.0), st.floats(1e-200, 1e3), st.floats(-1e3, -1e-200)),
)  # a slope near the least double rescaled underflows to 0: another number, not another unit


@settings(max_examples=80, deadline=None)
@given(slopes, st.floats(1e-6, 1e6))
def test_whether_a_row_is_moved_does_not_depend_on_a_parameters_unit(jacobian, scale) -> None:
    rescaled = jacobian.copy()
    rescaled[:, 0] *= scale  # the first parameter in another unit
    assert (moved_rows(rescaled) == moved_rows(jacobian)).all()
    with_zero = np.vstack([jacobian, np.zeros(jacobian.shape[1])])
    assert not moved_rows(with_zero)[-1]  # a row with no slope on anything is never counted
    for column in np.abs(jacobian).T:
        if column.max() > 0:
            assert moved_rows(jacobian)[int(np.argmax(column))]  # the row that moves a parameter most is


def test_the_measurement_wanted_is_a_row_left_over_where_each_members_response_is_already_measured() -> None:
    """Every member's response time measured, each pinning its other with none left over, and a
    throughput row no parameter moves: the measurement that would help most is a second interval's rows
    (a row left over), not the response times the rows already hold."""
    scenario = opened(ENV2)
    rows = rows_of(scenario, ["response_time", "throughput"])
    fit = fit_scenario(scenario, rows, FREE)
    assert fit.dof == 0 and len(fit.checks) == len(scenario.members)
    wanted = fit.most_needed()
    assert wanted.startswith("the same rows measured over a second interval at 0 km")
    assert "response time" not in wanted
    less = fit_scenario(scenario, rows[1:], FREE)  # the first member's response time not measured
    assert less.most_needed().startswith(f"{scenario.members[0].name}'s response time")


def test_calibrate_marks_a_check_in_its_table_of_every_row(tmp_path: Path) -> None:
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8").split("\n[band]")[0]
    text = re.sub(r"(?m)^lockable_items = .*$", 'measured_wait = "1.5ms"\nmeasured_at = "20km"', text)
    (tmp_path / "mine.toml").write_text(text, encoding="utf-8")
    at = with_inferred_locks(load_scenario(tmp_path / "mine.toml"))
    responses = rows_of(at, ["response_time"], 20.0)
    lines = ["distance,member,quantity,value"]
    lines += [f"20km,{row.member},response_time,{row.value * 1e3:.4f}ms" for row in responses]
    lines.append("20km,all,lock_contention,1.5ms")
    (tmp_path / "rows.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    files = [str(tmp_path / "mine.toml"), str(tmp_path / "rows.csv")]
    done = CliRunner().invoke(
        cli, ["scenario", "calibrate", *files, "--free", "member.*.other"], env={"COLUMNS": "160"}
    )
    assert done.exit_code == 0, done.output
    table = [line for line in done.output.splitlines() if "│" in line]
    (wait,) = [line for line in table if "all lock_contention 20 km" in line]
    assert "(a check)" in wait
    assert not [line for line in table if "response_time 20 km" in line and "(a check)" in line]


@settings(max_examples=100, deadline=None)
@given(measured=st.floats(0.0, 1.0), off=st.floats(-0.05, 0.05))
def test_a_share_is_fitted_on_its_difference_in_points_however_near_0_it_lies(measured, off) -> None:
    """SHARES says both what is at most 100% and what is fitted on its absolute difference: a share read
    as 0.1% misses by as many points as one read as 90% (a relative residual would grow without bound)."""
    row = Measurement("s", "all", 0.0, "share_within_goal", measured)
    assert "share_within_goal" in SHARES
    assert weighted_residual(row, measured + off) == pytest.approx(off / SIGMA["share_within_goal"])
