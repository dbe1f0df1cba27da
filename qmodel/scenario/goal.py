"""Goal seek: the largest distance at which every member still meets the WLM goal, and what breaks it."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from qmodel.errors import InputError
from qmodel.scenario.compose import _solve
from qmodel.scenario.result import BREAKDOWN
from qmodel.scenario.spec import Scenario

GRID = 64  # distances per refinement round
ROUNDS = 2  # (1/64)^2 of the range: 0.07 km over 300 km
# a distance still unsettled after this many iterations counts as failing: one that meets the goal has a
# short response time, reached in a few iterations; only distances near thrashing are slow
ITERATIONS = 60


class GoalSeek(NamedTuple):
    """The answer: the largest distance (m) keeping the goal, the member that breaks it past there and why.

    ``distance`` is NaN when the goal fails already at 0 km; ``member`` is ""
    when the goal holds over the whole searched range (up to ``searched``).
    """

    distance: float
    searched: float
    member: str
    component: str  # the breakdown component that grew most from 0 km, or "thrashing"
    share: float  # the member's share within the goal just past the distance


def _failing(scenario: Scenario, distances: np.ndarray, below: np.ndarray | None = None
             ) -> tuple[np.ndarray, object]:
    result = _solve(scenario, distances, 1.0, with_thrashing_load=False, max_iterations=ITERATIONS,
                    below=below)
    meets = (result.share_within_goal >= scenario.goal_share).all(axis=0) & ~result.thrashing
    return ~meets, result


def max_distance(scenario: Scenario, upper: float = 300e3) -> GoalSeek:
    """The largest distance in [0, upper] m at which every member's share within the goal time reaches
    the goal share (refined grids: the share falls as distance grows). Each round is one solve over
    its grid; the first grid's 0 km column is the base the breaking component is measured from."""
    if not upper > 0:
        raise InputError("--up-to", upper, "a distance > 0 km")
    low, high = 0.0, upper
    base, below = None, None
    for _ in range(ROUNDS):
        grid = np.linspace(low, high, GRID)
        failing, result = _failing(scenario, grid, below)
        base = result if base is None else base
        if failing[0] and low == 0.0:
            return GoalSeek(float("nan"), upper, *_culprit(result, 0, None))
        if not failing.any():
            return GoalSeek(high, upper, "", "", float("nan"))
        first = int(np.argmax(failing))
        low, high = grid[first - 1], grid[first]
        below = result.response_time[:, first - 1 : first]  # R grows with distance: a start from below
    return GoalSeek(low, upper, *_culprit(result, first, base))


def _culprit(result, index: int, base) -> tuple[str, str, float]:
    """(member, component, share) of the member with the lowest share at ``index``."""
    if result.thrashing[index]:
        return "all", "thrashing", float("nan")
    m = int(np.nanargmin(result.share_within_goal[:, index]))
    if base is None:
        return result.members[m], "", float(result.share_within_goal[m, index])
    growth = {name: result.breakdown[name][m, index] - base.breakdown[name][m, 0] for name in BREAKDOWN}
    return result.members[m], max(growth, key=growth.get), float(result.share_within_goal[m, index])
