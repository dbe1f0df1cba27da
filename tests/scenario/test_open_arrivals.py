"""A member's workload as a transaction rate (open arrivals, ``arrival_rate``), one voice with terminals and
a think time: a closed population large enough, thinking long enough to give the same throughput,
answers as the open member does; arrivals beyond what the CPs or subchannels carry have no answer,
and say why."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.scenario import load_scenario, solve_scenario
from qmodel.scenario.band import NARROW, Banded, narrowing
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.spec import ScenarioError, read_scenario_toml, scenario_from_dict

ENV2 = load_scenario("gdps-env2")


def opened(scenario, rates):
    return replace(
        scenario,
        members=tuple(
            replace(m, arrival_rate=float(rate), terminals=0, think_time=0.0)
            for m, rate in zip(scenario.members, rates, strict=True)
        ),
    )


def crowded(scenario, rates, response, factor):
    """Each member with ``factor`` times its terminals, thinking so long that its throughput stays
    ``rates`` at ``response``: Z = N / X − R."""
    return replace(
        scenario,
        members=tuple(
            replace(m, terminals=m.terminals * factor, think_time=m.terminals * factor / rate - r)
            for m, rate, r in zip(scenario.members, rates, response, strict=True)
        ),
    )


@pytest.mark.parametrize("km", [0.0, 40.0, 100.0])
def test_a_closed_member_with_many_terminals_and_a_long_think_time_approaches_the_open_answer(km) -> None:
    at = np.array([km * 1e3])
    closed = solve_scenario(ENV2, at)
    rates, response = closed.throughput[:, 0], closed.response_time[:, 0]
    open_answer = solve_scenario(opened(ENV2, rates), at).response_time[:, 0]
    gaps = [
        np.abs(
            solve_scenario(crowded(ENV2, rates, response, factor), at).response_time[:, 0] / open_answer - 1
        ).max()
        for factor in (1, 10, 100)
    ]
    assert gaps[0] >= gaps[1] >= gaps[2]  # more terminals, thinking longer: nearer the open answer
    assert gaps[2] < 0.002


def test_arrivals_beyond_what_the_cps_carry_have_no_response_time_and_say_why() -> None:
    cps = ENV2.members[0].logical_cps
    too_many = opened(ENV2, [2 * cps / ENV2.members[0].cpu, 1.0])  # twice what the CPs carry
    result = solve_scenario(too_many, np.array([0.0, 40e3]))
    assert result.thrashing.all() and result.open_saturated.all() and not result.lock_thrashing.any()
    assert np.isnan(result.response_time).all()


def test_the_open_answer_grows_with_the_rate_and_with_distance() -> None:
    low, high = (solve_scenario(opened(ENV2, [rate, rate]), np.array([0.0, 40e3])) for rate in (8.0, 12.0))
    assert np.all(high.response_time > low.response_time)
    assert np.all(low.response_time[:, 1] > low.response_time[:, 0])
    assert low.throughput == pytest.approx(np.full((2, 2), 8.0))


def test_a_member_is_open_or_closed_never_both() -> None:
    data = read_scenario_toml(resolve_scenario("gdps-env2"))
    data["member"][0]["arrival_rate"] = 11
    with pytest.raises(ScenarioError) as refused:
        scenario_from_dict(data)
    assert "terminals" in str(refused.value) and "arrival_rate" in str(refused.value)
    for key in ("terminals", "think_time"):
        del data["member"][0][key]
    assert scenario_from_dict(data).members[0].arrival_rate == 11


def test_the_table_says_why_an_open_member_has_no_answer(tmp_path) -> None:
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8").split("\n[band]")[0]  # points: closed
    path = tmp_path / "open.toml"
    closed = r'terminals = 100\nthink_time = "[^"]*"\n'
    path.write_text(re.sub(closed, "arrival_rate = 4000\n", text, count=1), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["scenario", str(path), "--distance", "20km", "--no-breakdown"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "no response time exists" in said and "more than its CPs or the CF subchannels carry" in said


def test_a_band_does_not_spread_what_the_file_gives(tmp_path) -> None:
    """An open member's throughput is its arrival rate: no band around it. A closed member's cannot pass
    its terminals over their think time (X = N / (Z + R)) by more than a run's own scatter: the model
    predicts only the drop its response time makes, whatever was measured."""
    from qmodel.scenario.band import load_banded, solve_banded

    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8").split("\n[[calibration]]")[0]
    text = text.split("\n[band]")[0]
    path = tmp_path / "mixed.toml"
    path.write_text(
        re.sub(r'terminals = 100\nthink_time = "[^"]*"\n', "arrival_rate = 11\n", text, count=1),
        encoding="utf-8",
    )
    banded = load_banded(path)
    result = solve_banded(banded, np.array([0.0, 20e3, 40e3]))
    low, high = result.band.ends["throughput[1/s]"]
    members = banded.scenario.members
    for m, member in enumerate(members):
        if member.open:
            assert low[m] == pytest.approx(11) and high[m] == pytest.approx(11)
        else:
            bound = member.terminals / member.think_time
            assert np.all(high[m] <= bound * 1.05)  # a 5-minute count's own scatter, not ±40%


@pytest.mark.parametrize("open_members", [1, 2])
def test_the_measurement_that_narrows_an_unmeasured_band_asks_for_no_think_time_of_an_open_sysplex(
    open_members,
) -> None:
    """Where nothing is fitted, the line naming the measurement asks for what fits each member's values:
    its other and, of a closed member, its think time; a sysplex whose members are all open has none."""
    members = tuple(
        replace(m, arrival_rate=100.0, terminals=0, think_time=0.0) if i < open_members else m
        for i, m in enumerate(ENV2.members)
    )
    banded = Banded(replace(ENV2, members=members), measured_at=None)
    response = np.ones((1, len(members), 1))
    said = narrowing(banded, response, np.ones_like(response), np.ones(1))
    everyone_open = open_members == len(members)
    assert said == NARROW["unmeasured_open" if everyone_open else "unmeasured"]
    assert ("think time" in said) != everyone_open


def test_a_band_point_whose_arrivals_saturate_is_counted_under_that_cause_and_the_notes_say_it() -> None:
    from qmodel.cli.scenario import _band_notes
    from qmodel.scenario.band import band_of
    from qmodel.scenario.result import WITHOUT_ANSWER

    cps, cpu = ENV2.members[0].logical_cps, ENV2.members[0].cpu
    answer = opened(ENV2, [8.0, 8.0])
    beyond = opened(ENV2, [2 * cps / cpu, 8.0])  # a point twice what the CPs carry
    at = np.array([0.0, 40e3])
    nominal = solve_scenario(answer, at)
    band = band_of(Banded(answer, (beyond,), (0.1,)), nominal)
    assert list(band.points_without_answer) == [1, 1]
    assert list(band.without_answer["open"]) == [1, 1]
    assert not band.without_answer["lock"].any() and not band.without_answer["volumes"].any()
    notes = " ".join(_band_notes(replace(nominal, band=band)))
    assert f"some parameter point has no response time ({WITHOUT_ANSWER['open']})" in notes
    assert WITHOUT_ANSWER["lock"] not in notes
