"""The goal seek's bracketed search: the same first failing distance, and the same values there, as one
solve over the whole grid."""

from dataclasses import replace

import numpy as np
import pytest

from qmodel.scenario import load_scenario
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.goal import GRID, STRIDE, _failing, _first_failing

ENV2 = load_scenario(resolve_scenario("gdps-env2"))
ENV3 = load_scenario(resolve_scenario("gdps-env3"))
SCENARIOS = {
    "env2": ENV2,  # fails from about 52 km: inside the second coarse stretch
    "env3": ENV3,  # fails from about 6 km: inside the first
    "env2-loose-goal": replace(ENV2, goal_time=ENV2.goal_time * 3),  # fails far out
    "env3-crowded-locks": replace(ENV3, lockable_items=ENV3.lockable_items / 50),  # thrashes
    "env2-tight-goal": replace(ENV2, goal_time=ENV2.goal_time / 10),  # fails at 0 km
    "env2-easy-goal": replace(ENV2, goal_time=10.0),  # never fails
}
GRID_300KM = np.linspace(0, 300e3, GRID)


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def whole_grid(request):
    scenario = SCENARIOS[request.param]
    failing, result = _failing(scenario, GRID_300KM, None)
    return scenario, failing, result


def test_the_bracketed_search_finds_the_first_failing_distance_of_the_whole_grid(whole_grid) -> None:
    scenario, failing, _ = whole_grid
    expected = int(np.argmax(failing)) if failing.any() else None
    assert _first_failing(scenario, GRID_300KM, None).first == expected


def test_the_bracketed_search_solves_the_distances_it_answers_from_as_the_whole_grid_does(whole_grid) -> None:
    # the first failing distance and the one before it (the next round's start): same values, bit for bit
    scenario, _, result = whole_grid
    found = _first_failing(scenario, GRID_300KM, None)
    for index in {found.first or 0, max((found.first or 0) - 1, 0)}:
        column = int(np.searchsorted(found.columns, index))
        assert found.columns[column] == index
        for name in ("response_time", "share_within_goal"):
            bracketed, whole = getattr(found.result, name), getattr(result, name)
            np.testing.assert_array_equal(bracketed[:, column], whole[:, index])
    np.testing.assert_array_equal(found.origin.response_time[:, 0], result.response_time[:, 0])


def test_the_bracketed_search_solves_at_most_two_small_sets_of_distances(whole_grid) -> None:
    scenario, _, _ = whole_grid
    found = _first_failing(scenario, GRID_300KM, None)
    assert found.result.distances.size <= STRIDE + 1 and found.origin.distances.size <= STRIDE + 1
