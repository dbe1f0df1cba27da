"""Each member's gamma shape: fitted on its share within the goal at 0 km, the propagation a shift above.

Source: gdps-pprc-100km-2006.txt, the TPNO tables' percentile rows (% within the 125 ms WLM goal) at
pprc 0 km: Environment 1 G1P1 97.9% at 41 ms, G1P2 96.5% at 35 ms; Environment 2 P1 97.7% at 30 ms and
both members 96.6% of 6820 transactions.
"""

from dataclasses import replace

import numpy as np
import pytest

from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError
from qmodel.scenario.calibrate import SHAPE_ROWS, fit_shape, fit_shapes, shape_interval, shape_rows
from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.spec import load_scenario

GOAL = 0.125


def test_the_fitted_shape_gives_the_share_back_on_the_branch_above_the_least_share() -> None:
    shape = fit_shape(0.030, 0.977, GOAL)
    share = calc("share_within_goal", units="si", goal=GOAL, mean_response=0.030, shape=shape).share
    assert float(share) == pytest.approx(0.977, abs=1e-12)
    assert 0.7 < shape < 0.9  # the other root, about 0.015, is no response time's spread


def test_a_share_no_gamma_shape_reaches_is_refused_with_the_range_there_is() -> None:
    with pytest.raises(InputError, match=r"share within the goal = 50\.00%"):
        fit_shape(0.030, 0.5, GOAL)


def test_environment_2s_g1p2_rests_on_the_both_members_rest() -> None:
    mean, share, factor = shape_rows("gdps-env2")["G1P2"]
    assert (mean, factor) == (38, 3.0)
    assert share == pytest.approx((96.6 * 6820 - 97.7 * 3401) / 3419)


@pytest.mark.parametrize("name", sorted(SHAPE_ROWS))
def test_the_shipped_files_carry_the_fitted_shapes(name) -> None:
    scenario = load_scenario(resolve_scenario(name))
    unfitted = replace(scenario, members=tuple(replace(m, shape=None) for m in scenario.members))
    fitted = fit_shapes(name, unfitted)
    assert [m.shape for m in scenario.members] == pytest.approx([m.shape for m in fitted.members], rel=1e-3)


@pytest.mark.parametrize("name", sorted(SHAPE_ROWS))
def test_at_0_km_each_member_gives_back_its_calibration_row(name) -> None:
    scenario = load_scenario(resolve_scenario(name))
    result = solve_scenario(scenario, np.array([0.0]))
    for member, (_, share, _) in shape_rows(name).items():
        given = result.share_within_goal[result.members.index(member), 0] * 100
        assert given == pytest.approx(share, abs=0.01)


def test_a_longer_mean_or_a_larger_share_takes_a_lighter_tail() -> None:
    low, high = shape_interval(30, 97.7, 1.0, GOAL)
    assert low < fit_shape(0.030, 0.977, GOAL) < high


def test_a_members_shape_moves_only_its_own_share() -> None:
    scenario = load_scenario(resolve_scenario("gdps-env2"))
    members = scenario.members
    lighter = replace(scenario, members=(replace(members[0], shape=2.0), members[1]))
    before, after = (solve_scenario(s, np.array([0.0, 70e3])) for s in (scenario, lighter))
    assert np.array_equal(before.response_time, after.response_time)
    assert np.array_equal(before.share_within_goal[1], after.share_within_goal[1])
    assert (after.share_within_goal[0] > before.share_within_goal[0]).all()


def test_whole_member_shapes_give_the_scenario_wide_erlang_answer() -> None:
    scenario = load_scenario(resolve_scenario("gdps-env2"))
    wide = replace(scenario, shape=2, members=tuple(replace(m, shape=None) for m in scenario.members))
    own = replace(scenario, members=tuple(replace(m, shape=2.0) for m in scenario.members))
    distances = np.array([0.0, 40e3, 100e3])
    assert np.array_equal(
        solve_scenario(wide, distances).share_within_goal, solve_scenario(own, distances).share_within_goal
    )


def test_the_propagation_is_the_shift() -> None:
    # at 100 km the member pays its propagation for sure: the share is the gamma's of the rest of the mean
    scenario = load_scenario(resolve_scenario("gdps-env2"))
    result = solve_scenario(scenario, np.array([100e3]))
    m, shape = 0, scenario.members[0].shape
    shift, mean = result.fixed_part[m, 0], result.response_time[m, 0]
    alone = calc("share_within_goal", units="si", goal=GOAL - shift, mean_response=mean - shift, shape=shape)
    assert result.share_within_goal[m, 0] == pytest.approx(float(alone.share), rel=1e-12)
