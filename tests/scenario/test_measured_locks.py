"""Lock contention as measured at today's distance (``[locks] measured_wait`` at ``measured_at``, DB2
accounting class 3 lock/latch and global contention per transaction) in place of ``lockable_items``:
the hot set is inferred from it, with an interval, and every answer carries the band that interval
gives."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.scenario import fit as fit_module
from qmodel.scenario import load_scenario, solve_scenario
from qmodel.scenario.band import NARROW, load_banded, narrowing, solve_banded
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.fit import _lock_row, fit_scenario, with_inferred_locks, with_inferred_locks_together

ENV2 = load_scenario("gdps-env2")


def measured_file(folder: Path, wait_ms: float, at: str = "0km") -> Path:
    """Environment 2 with its lock wait as measured in place of its lockable_items (and no [band])."""
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8").split("\n[band]")[0]
    measured = f'measured_wait = "{wait_ms!r}ms"\nmeasured_at = "{at}"'
    text = re.sub(r"(?m)^lockable_items = .*$", measured, text)
    path = folder / "measured.toml"
    path.write_text(text, encoding="utf-8")
    return path


def average_wait(scenario, km: float) -> float:
    result = solve_scenario(scenario, np.array([km * 1e3]))
    weights = result.throughput[:, 0]
    return float(weights @ result.breakdown["lock_contention"][:, 0] / weights.sum())


@pytest.mark.parametrize("km", [0.0, 40.0])
def test_the_hot_set_that_gives_the_measured_wait_is_found_again_with_an_interval(tmp_path, km) -> None:
    path = measured_file(tmp_path, average_wait(ENV2, km) * 1e3, f"{km:g}km")
    banded = load_banded(path)
    assert banded.scenario.lockable_items == pytest.approx(ENV2.lockable_items, rel=1e-3)
    low, high = (point.lockable_items for point in banded.points)
    assert low < ENV2.lockable_items < high
    assert "measured_wait" in banded.method and "95%" in banded.method
    assert load_scenario(path).lockable_items == pytest.approx(banded.scenario.lockable_items)


def test_a_longer_measured_wait_means_a_smaller_hot_set(tmp_path) -> None:
    wait = average_wait(ENV2, 0.0) * 1e3
    found = [load_scenario(measured_file(tmp_path, factor * wait)).lockable_items for factor in (0.5, 1, 2)]
    assert found[0] > found[1] > found[2]


def test_a_wait_the_model_never_reaches_is_refused_by_name(tmp_path) -> None:
    with pytest.raises(InputError) as refused:
        load_scenario(measured_file(tmp_path, 5000.0))
    assert "measured_wait" in str(refused.value)


def test_the_answer_to_a_file_with_a_measured_wait_carries_its_band(tmp_path) -> None:
    path = measured_file(tmp_path, average_wait(ENV2, 0.0) * 1e3)
    result = CliRunner().invoke(cli, ["scenario", str(path), "--distance", "40km", "--format", "json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert "measured_wait" in answer["band"]["method"]
    for row in answer["results"]:
        assert row["response_time_low[ms]"] < row["response_time[ms]"] < row["response_time_high[ms]"]


@pytest.mark.parametrize("factor", [0.5, 2.0, 1e6])
def test_an_inference_started_near_finds_what_the_scan_of_starts_finds(tmp_path, factor) -> None:
    """A band point infers its hot set starting from the answer's own (one start, not the scan): the same
    root, and where nothing is reached from there the scan decides as before."""
    unknown = replace(
        load_scenario(measured_file(tmp_path, average_wait(ENV2, 0.0) * 1e3)), lockable_items=np.nan
    )
    scanned = with_inferred_locks(unknown).lockable_items
    near = with_inferred_locks(unknown, near=scanned * factor).lockable_items
    assert near == pytest.approx(scanned, rel=1e-3)


@pytest.mark.parametrize("km", [0.0, 40.0])
def test_the_root_and_least_squares_give_one_inference(tmp_path, km) -> None:
    """Two routes to the hot set of a measured wait: the root by secant steps with the slope there (every
    `qmodel scenario` of such a file, no scipy) and weighted least squares on the same row agree on the
    value and its 95% interval."""
    scenario = load_scenario(measured_file(tmp_path, average_wait(ENV2, km) * 1e3, f"{km:g}km"))
    root = scenario.lockable_items
    least = fit_scenario(
        replace(scenario, lockable_items=root * 1.7), [_lock_row(scenario)], ["locks.lockable_items"]
    )
    assert least.values["locks.lockable_items"] == pytest.approx(root, rel=1e-3)
    said = scenario.calibration[-1]["fitted_on"]
    low, high = least.intervals()["locks.lockable_items"]
    assert f"95% {low:.4g} to {high:.4g}" in said


def test_a_band_from_a_measured_wait_names_a_second_distance_not_more_rows_of_a_fit(tmp_path) -> None:
    """A file with no calibration whose band is the interval of the hot set its measured lock wait
    implies: where that interval is the band's largest part, the line names what would pin the lock
    parameters (response times at a second distance), not "more rows in the fit" (there is no fit)."""
    banded = load_banded(measured_file(tmp_path, average_wait(ENV2, 0.0) * 1e3))
    assert banded.ranged == ("measured_wait",) * len(banded.points)
    response = np.stack([solve_scenario(each, np.array([40e3])).response_time for each in banded.points])
    response = np.concatenate([response.mean(axis=0, keepdims=True), response])
    weights = banded.all_weights()
    said = narrowing(banded, response, np.zeros_like(response), weights)
    assert said == NARROW["measured_wait"].format(at="0 km") and "besides 0 km" in said


def test_the_band_of_a_measured_wait_is_its_normal_by_sigma_points_not_the_95_percent_ends(tmp_path) -> None:
    """The hot set inferred from a measured wait is normal on a log scale; its band takes that normal's
    sigma points (±√3 σ, weight 1/6 each, the answer the rest), as a calibration's band takes a fit's:
    the ends of the 95% interval at equal weights would give it 2.6 times its variance (trial 5, N7)."""
    banded = load_banded(measured_file(tmp_path, average_wait(ENV2, 0.0) * 1e3))
    value = banded.scenario.lockable_items
    low, high = (float(end) for end in re.findall(r"95% ([0-9.e+]+) to ([0-9.e+]+)", banded.method)[0])
    sigma = (np.log(high) - np.log(low)) / 2 / 1.959964
    steps = sorted(np.log(point.lockable_items / value) for point in banded.points)
    assert steps == pytest.approx([-np.sqrt(3) * sigma, np.sqrt(3) * sigma], rel=2e-3)
    assert banded.weights == pytest.approx((1 / 6, 1 / 6))


def test_a_wait_only_the_thrashing_edge_nears_is_refused_naming_the_most_the_model_reaches(tmp_path) -> None:
    """A measured wait below the up-front bound (3× the response without contention) but above what any
    hot set gives before the model thrashes: refused by the file's name with the largest wait the model
    reaches, found by bisecting the thrashing edge (trial 5, N4: 23 to 48 s of least squares there)."""
    with pytest.raises(InputError) as refused:
        load_scenario(measured_file(tmp_path, 60.0))
    said = str(refused.value)
    assert said.startswith("measured.toml: locks.measured_wait = 60 ms")
    reached = float(
        re.search(r"at most about ([0-9.]+) ms, the largest lock wait the model reaches", said)[1]
    )
    assert reached < 60.0


def test_a_bands_points_inferred_together_get_what_each_gets_alone(tmp_path) -> None:
    """A band's points (here: spans and a crossing latency, so two sets of load-free parts, and a point
    with lockable_items given) infer their hot sets with their secant steps solved together: the same
    values, bit for bit, and the same records (the 95% interval) as each inferred alone."""
    unknown = replace(
        load_scenario(measured_file(tmp_path, average_wait(ENV2, 40.0) * 1e3, "40km")), lockable_items=np.nan
    )
    points = [
        replace(unknown, lock_span=span, crossing_latency=latency)
        for span in (0.3, 0.6, 1.0)
        for latency in (0.0, 50e-6)
    ] + [replace(unknown, lockable_items=2e4)]
    near = with_inferred_locks(unknown).lockable_items
    together = with_inferred_locks_together(points, near)
    alone = [with_inferred_locks(point, near) for point in points]
    assert [p.lockable_items for p in together] == [p.lockable_items for p in alone]
    assert [p.calibration for p in together] == [p.calibration for p in alone]
    assert len({p.lockable_items for p in together}) == len(points)  # each point its own hot set


def test_a_calibration_at_two_distances_refits_the_hot_set_of_a_measured_wait(tmp_path) -> None:
    """A file with a measured wait calibrated on rows at two distances: the hot set is inferred again at
    every trial (its row at the wait's distance) beside the fit's rows at both distances, each set of
    rows solved at its own distances (trial 7's plexs: the shared load-free parts of the one were taken
    for the other's and the solve failed)."""
    path = measured_file(tmp_path, average_wait(ENV2, 40.0) * 1e3, "40km")
    result = solve_scenario(ENV2, np.array([0.0, 40e3]))
    table = "distance,member,quantity,value\n" + "".join(
        f"{km}km,{member},response_time,{result.response_time[m, d] * 1.05e3:.6g}ms\n"
        for d, km in enumerate((0, 40))
        for m, member in enumerate(result.members)
    )
    (tmp_path / "rows.csv").write_text(table, encoding="utf-8")
    done = CliRunner().invoke(
        cli,
        [
            "scenario",
            "calibrate",
            str(path),
            str(tmp_path / "rows.csv"),
            "--free",
            "member.*.other,locks.lock_span",
        ],
    )
    assert done.exit_code == 0, done.output
    assert path.with_name("measured.fit.toml").exists()


def test_a_calibrated_band_still_samples_the_measured_waits_own_sigma(tmp_path) -> None:
    """Trial 7, N3: a [band] (here a calibration's) takes the place of the band a measured wait's
    inference gives, and its points re-infer their hot sets from the wait as measured: its σ was not
    sampled (a calibrated file's lock contention band at 40 km, 7.9–8.4 ms, against 5.9–12.1 before).
    The band takes the wait at the two nodes of its normal on a log scale, each point's hot set inferred
    again there, so the lock contention band is wider than the fit's points alone give."""
    path = measured_file(tmp_path, average_wait(ENV2, 40.0) * 1e3, "40km")
    path.with_name("measured.fit.toml").write_text(
        '[band]\nmethod = "a fit"\nmeasured_at = "40km"\n'
        'points = [{ "member.G1P1.other" = "4ms" }, { "member.G1P1.other" = "8ms" }]\n'
        "weights = [0.25, 0.25]\n",
        encoding="utf-8",
    )
    banded = load_banded(path)
    assert "locks.measured_wait" in banded.method and "σ 20%" in banded.method
    waits = sorted({point.lock_measurement.wait for point in banded.points})
    measured = banded.scenario.lock_measurement.wait
    assert waits == pytest.approx([measured * np.exp(-0.2), measured * np.exp(0.2)])
    assert len(banded.points) == 2 * 3  # the scenario itself and the two points, at each node
    lock = solve_banded(banded, np.array([40e3])).band.ends["lock_contention[ms]"]
    assert lock[0][-1, 0] < 0.9 * measured * 1e3 and lock[1][-1, 0] > 1.1 * measured * 1e3  # "all": ±10%+


def test_points_that_differ_only_in_their_shapes_share_one_inference_of_their_hot_set(
    tmp_path, monkeypatch
) -> None:
    """A band's points at the nodes of a default gamma shape infer the same hot set (the inference reads
    no shape): inferred once, each point keeping its own shapes, with the values each gets alone; started
    from different answers (one start per point), they are inferred apart."""
    unknown = replace(
        load_scenario(measured_file(tmp_path, average_wait(ENV2, 40.0) * 1e3, "40km")), lockable_items=np.nan
    )
    points = [
        replace(
            unknown,
            lock_span=span,
            shape=shape,
            members=tuple(replace(m, shape=shape) for m in unknown.members),
        )
        for span in (0.5, 1.0)
        for shape in (0.62, 1.38)
    ]
    near = with_inferred_locks(unknown).lockable_items
    stepped = []
    waits = fit_module._lock_waits
    monkeypatch.setattr(
        fit_module, "_lock_waits", lambda subset, *a: stepped.append(len(subset)) or waits(subset, *a)
    )
    together = with_inferred_locks_together(points, near)
    assert stepped == [2]  # two spans, each inferred once
    alone = [with_inferred_locks(point, near) for point in points]
    assert [p.lockable_items for p in together] == [p.lockable_items for p in alone]
    assert [p.calibration for p in together] == [p.calibration for p in alone]
    assert [p.shape for p in together] == [0.62, 1.38, 0.62, 1.38]
    apart = with_inferred_locks_together(points[:2], [near, near * 1.5])
    assert apart[0].lockable_items == pytest.approx(apart[1].lockable_items, rel=1e-6)
    assert stepped[-1] == 2
