"""``qmodel scenario calibrate`` estimates its work before it starts and refuses what passes the limit
with a way out that works; a long fit says how far it is on a terminal, nothing where stderr is piped; the
lockable_items a measured wait gives is refitted at every trial from the last one's, and agrees with
inferring it afresh."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

from qmodel.cli import scenario as scenario_cli
from qmodel.errors import InputError
from qmodel.limits import TIME_LIMIT
from qmodel.scenario import fit as fit_module
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.fit import (
    CALIBRATION_START,
    LOCK_STARTS,
    _lock_row,
    _refit_items,
    calibration_evaluations,
    calibration_seconds,
    fit_scenario,
    lock_refit,
    model_values,
    refuse_long_calibration,
    refuse_unreached_wait,
    with_inferred_locks,
)
from qmodel.scenario.measurements import Measurement
from qmodel.scenario.spec import ScenarioError, load_scenario

ENV2 = load_scenario("gdps-env2")


def measured_wait_scenario(folder: Path, wait: str = "1.5ms"):
    """Environment 2 with a measured lock wait at 20 km in place of its lockable_items."""
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8").split("\n[band]")[0]
    text = re.sub(r"(?m)^lockable_items = .*$", f'measured_wait = "{wait}"\nmeasured_at = "20km"', text)
    path = folder / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)  # as the file has it: lockable_items not yet inferred


def test_the_refit_from_the_last_trial_agrees_with_inferring_afresh(tmp_path: Path) -> None:
    scenario = measured_wait_scenario(tmp_path)
    prepare = lock_refit(scenario, ["locks.lock_span"])
    assert prepare is not None
    for span in (0.5, 0.52, 0.3, 0.9, 0.9001):  # near and far from the last trial
        trial = replace(scenario, lock_span=span)
        afresh = with_inferred_locks(trial).lockable_items
        assert prepare(trial).lockable_items == pytest.approx(afresh, rel=1e-4)


def rows(runs: int) -> list[Measurement]:
    return [Measurement("mine", "G1P1", 20e3, "response_time", 0.05, subchannels=s + 1) for s in range(runs)]


def others(members: int) -> list[str]:
    return [f"member.M{i}.other" for i in range(members)]


def test_work_past_the_limit_is_refused_before_it_starts_with_ways_out_that_fit() -> None:
    many = rows(6)
    keys = [*others(len(ENV2.members)), *(f"member.G1P{i}.think_time" for i in (1, 2)), "locks.lock_span"]
    keys += [f"locks.key{i}" for i in range(7)]  # twelve, as a long free list would have them
    with pytest.raises(InputError) as refused:
        refuse_long_calibration(ENV2, many, keys, refit=True)
    message = str(refused.value)
    assert "too large to compute" in message and "10 s" in message and "bytes" not in message
    fitting = int(re.search(r"free at most (\d+) parameters", message).group(1))
    assert 1 <= fitting < len(keys)
    assert refuse_long_calibration(ENV2, many, keys[:fitting], refit=True) <= TIME_LIMIT  # the way out works
    with pytest.raises(InputError):
        refuse_long_calibration(ENV2, many, keys[: fitting + 1], refit=True)
    if "lockable_items stated" in message:
        assert refuse_long_calibration(ENV2, many, keys, refit=False) <= TIME_LIMIT
    if "locks.lock_span not free" in message:
        spanless = [key for key in keys if key != "locks.lock_span"]
        assert refuse_long_calibration(ENV2, many, spanless, refit=True) <= TIME_LIMIT


def test_a_refusal_offers_lockable_items_stated_where_that_fits_and_fewer_keys_would_not_fit_each_member():
    four = replace(ENV2, members=ENV2.members * 2)  # four members: each one's other is a key of its own
    keys = [*others(4), "locks.lock_span", *(f"member.M{i}.think_time" for i in range(4))]
    with pytest.raises(InputError) as refused:
        refuse_long_calibration(four, rows(2), keys, refit=True)
    message = str(refused.value)
    assert "lockable_items stated in place of measured_wait" in message
    assert refuse_long_calibration(four, rows(2), keys, refit=False) <= TIME_LIMIT


# Trial 5 (issue 32): whole process CPU of `qmodel scenario calibrate`, the refusal stubbed out, the median
# of 3 runs (9 for the two-member file: plexb2, b2r, b3 make the same 170 solves), lockable_items refitted
# from measured_wait, rows in one run: a four-member file with its members' other free, 4.41 s (estimated
# 13.3 s before); with two think times and lock_span free as well, 6.81 s (22 s); its others and
# lock_span, 5.79 s (16.2 s); a two-member file with its others and lock_span, 3.86 s. A file's runs
# spread +-20% on the loaded machine, hence the 0.9.
MEASURED = [
    (4, ["member.M0.other", "member.M1.other", "member.M2.other", "member.M3.other"], 4.41),
    (
        4,
        [
            "member.M0.other",
            "member.M1.other",
            "member.M2.other",
            "member.M3.other",
            "think0",
            "think1",
            "locks.lock_span",
        ],
        6.81,
    ),
    (
        4,
        ["member.M0.other", "member.M1.other", "member.M2.other", "member.M3.other", "locks.lock_span"],
        5.79,
    ),
    (2, ["member.M0.other", "member.M1.other", "locks.lock_span"], 3.86),
]


@pytest.mark.parametrize(("members", "keys", "seconds"), MEASURED)
def test_the_estimate_is_not_low_and_at_most_half_again_above_a_measured_calibration(
    members: int, keys: list[str], seconds: float
) -> None:
    estimate = calibration_seconds(members, rows(1), keys, refit=True)
    assert 0.9 * seconds <= estimate <= 1.5 * seconds
    assert estimate <= TIME_LIMIT  # each ran in under 10 s: none is refused


def test_the_estimate_counts_the_runs_the_lock_refit_and_the_span_held_and_fitted_again() -> None:
    keys = others(3)
    one, two = (calibration_seconds(2, rows(n), keys, refit=False) - CALIBRATION_START for n in (1, 2))
    assert two == pytest.approx(2 * one)
    assert calibration_seconds(2, rows(1), keys, refit=True) > one + CALIBRATION_START
    spanned = [*keys, "locks.lock_span"]
    assert calibration_evaluations(spanned, refit=True) > 1.5 * calibration_evaluations(spanned, refit=False)
    assert refuse_long_calibration(ENV2, rows(1), keys, refit=False) == calibration_seconds(
        len(ENV2.members), rows(1), keys, refit=False
    )


def test_the_fit_reports_each_evaluation_it_makes() -> None:
    truth = replace(ENV2, lockable_items=3000.0)
    measured = [
        Measurement("mine", m, d, "response_time", 1.0) for d in (0.0, 40e3) for m in ("G1P1", "G1P2")
    ]
    measured = [
        replace(r, value=float(v)) for r, v in zip(measured, model_values(truth, measured), strict=True)
    ]
    counted: list[int] = []
    fit_scenario(ENV2, measured, ["locks.lockable_items"], progress=counted.append)
    assert counted == list(range(1, len(counted) + 1)) and len(counted) >= 2


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_fit_keeps_one_progress_line_on_a_terminal_and_clears_it(monkeypatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(scenario_cli.sys, "stderr", terminal)
    monkeypatch.setattr(scenario_cli, "PROGRESS_AFTER", 0.0)
    with scenario_cli._progress_line("calibrating 3 parameters on 8 rows", 36) as progress:
        assert progress is not None
        progress(1)
        progress(2)
    shown = terminal.getvalue()
    assert "calibrating 3 parameters on 8 rows: evaluation 2 of about 36" in shown
    assert shown.endswith("\r\033[K") and "\n" not in shown


def test_piped_stderr_gets_no_progress_line(monkeypatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(scenario_cli.sys, "stderr", piped)
    with scenario_cli._progress_line("calibrating", 10) as progress:
        assert progress is None
    assert piped.getvalue() == ""


def test_a_refit_with_no_slope_to_step_by_gives_way_to_inferring_afresh(tmp_path: Path) -> None:
    scenario = measured_wait_scenario(tmp_path)
    start = with_inferred_locks(scenario).lockable_items
    assert _refit_items(replace(scenario, lock_span=0.6), start, float("nan")) is None
    found = _refit_items(replace(scenario, lock_span=0.6), start, 0.0)  # a first step of 1%, then secant
    assert found is not None
    assert found[0] == pytest.approx(
        with_inferred_locks(replace(scenario, lock_span=0.6)).lockable_items, rel=1e-4
    )


def scanned(scenario) -> list[float]:
    row = _lock_row(scenario)
    return [model_values(replace(scenario, lockable_items=float(i)), [row])[0] for i in LOCK_STARTS]


def test_a_wait_past_what_the_model_reaches_is_refused_from_the_scan_naming_the_file_and_the_most(
    tmp_path: Path, monkeypatch
) -> None:
    """Trial 5, N4: 80 ms where the model reaches 74 ms (below the up-front 3x bound) was refused after a
    least-squares search of 23-48 s over the thrashing edge, without the file's name. Environment 2 at
    20 km (response without lock contention 36.9 ms) reaches about 62 ms."""
    scenario = measured_wait_scenario(tmp_path, "80ms")
    waits = scanned(scenario)
    solves: list[int] = []
    counting = fit_module.model_values
    monkeypatch.setattr(fit_module, "model_values", lambda *a: solves.append(1) or counting(*a))
    with pytest.raises(ScenarioError) as refused:
        refuse_unreached_wait(scenario, LOCK_STARTS, waits)
    said = str(refused.value)
    assert said.startswith("mine.toml: locks.measured_wait = 80 ms") and "\n" not in said
    assert len(solves) <= 12  # a bisection of the edge between two starts of the scan
    most, items = re.search(r"at most about ([\d.]+) ms, .*lockable_items ([\d.]+);", said).groups()
    assert max(w for w in waits if w == w) < float(most) / 1e3 < 0.080
    reached = counting(replace(scenario, lockable_items=float(items)), [_lock_row(scenario)])[0]
    assert reached == pytest.approx(float(most) / 1e3, rel=2e-3)  # the stated most is the model's


def test_a_wait_the_scan_leaves_near_the_edge_gets_a_start_that_reaches_it(tmp_path: Path) -> None:
    scenario = measured_wait_scenario(tmp_path, "60ms")
    start = refuse_unreached_wait(scenario, LOCK_STARTS, scanned(scenario))
    assert start is not None
    assert model_values(replace(scenario, lockable_items=start), [_lock_row(scenario)])[0] >= 0.060
    usual = measured_wait_scenario(tmp_path, "1.5ms")  # a wait the scan brackets: nothing to search
    assert refuse_unreached_wait(usual, LOCK_STARTS, scanned(usual)) is None
