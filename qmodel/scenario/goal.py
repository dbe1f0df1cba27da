"""Goal seek: the largest distance at which every member still meets the WLM goal, and what breaks it."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from qmodel.errors import InputError
from qmodel.scenario.compose import _Fixed, _fixed_parts, _solve
from qmodel.scenario.result import BREAKDOWN, ScenarioResult
from qmodel.scenario.spec import Scenario

GRID = 64  # distances per refinement round
ROUNDS = 2  # (1/64)^2 of the range: 0.07 km over 300 km
STRIDE = 8  # a round solves every 8th distance of its grid, then only the stretch where the goal first fails
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


class _Round(NamedTuple):
    """Where the goal first fails on one round's grid, and a solve that holds that distance."""

    first: int | None  # grid index of the first failing distance; None where every distance meets the goal
    result: ScenarioResult  # solved at the grid distances ``columns``
    columns: np.ndarray  # grid indices, ascending; ``first`` and the index before it are among them
    origin: ScenarioResult  # the solve whose first column is the grid's first distance


def _failing(scenario: Scenario, distances: np.ndarray, below: np.ndarray | None, fixed: _Fixed | None = None
             ) -> tuple[np.ndarray, ScenarioResult]:
    result = _solve(scenario, distances, 1.0, with_thrashing_load=False, max_iterations=ITERATIONS,
                    below=below, fixed=fixed)
    meets = (result.share_within_goal >= scenario.goal_share).all(axis=0) & ~result.thrashing
    return ~meets, result


def _first_failing(scenario: Scenario, grid: np.ndarray, below: np.ndarray | None) -> _Round:
    """The first distance of ``grid`` at which the goal fails, found with two solves of at most
    STRIDE + 1 distances: every STRIDE-th distance and the last, then every distance between the
    last one meeting the goal and the first failing it. The share within the goal falls as the
    distance grows and thrashing, once begun, persists (the refinement into rounds rests on the same
    order), so the goal fails from some distance on, and that distance lies between the last coarse
    distance meeting the goal and the first failing it.

    Each distance is solved on its own (the fixed point's columns do not interact), so the answer
    and the values at it are those of one solve over the whole grid. The load-free parts are computed
    once for the whole grid (their cost is per call, hardly per distance) and shared by both solves."""
    fixed = _fixed_parts(scenario, grid)
    coarse = np.minimum(np.arange(0, grid.size + STRIDE - 1, STRIDE), grid.size - 1)  # 0, 8, ..., 56, 63
    failing, result = _failing(scenario, grid[coarse], below, fixed.at(coarse))
    if not failing.any():
        return _Round(None, result, coarse, result)
    place = int(np.argmax(failing))
    if place == 0:
        return _Round(0, result, coarse, result)
    columns = np.arange(coarse[place - 1], coarse[place] + 1)
    failing, fine = _failing(scenario, grid[columns], below, fixed.at(columns))
    return _Round(int(columns[np.argmax(failing)]), fine, columns, result)


def max_distance(scenario: Scenario, upper: float = 300e3) -> GoalSeek:
    """The largest distance in [0, upper] m at which every member's share within the goal time reaches
    the goal share, on refined grids: GRID distances over [0, upper], then GRID over the step where the
    goal first fails (the share falls as distance grows). Each round finds its step with two small
    solves (:func:`_first_failing`); the first round's 0 km distance is the base the breaking
    component is measured from."""
    if not upper > 0:
        raise InputError("--up-to", upper, "a distance > 0 km")
    low, high = 0.0, upper
    base, below = None, None
    for _ in range(ROUNDS):
        grid = np.linspace(low, high, GRID)
        found = _first_failing(scenario, grid, below)
        base = found.origin if base is None else base  # its first column is 0 km
        if found.first == 0 and low == 0.0:
            return GoalSeek(float("nan"), upper, *_culprit(found.result, 0, None))
        if found.first is None:
            return GoalSeek(high, upper, "", "", float("nan"))
        first = found.first
        at = int(np.searchsorted(found.columns, first))  # the first failing distance's column in the solve
        low, high = grid[first - 1], grid[first]
        below = found.result.response_time[:, at - 1 : at]  # R grows with distance: a start from below
    return GoalSeek(low, upper, *_culprit(found.result, at, base))


def _culprit(result: ScenarioResult, index: int, base: ScenarioResult | None) -> tuple[str, str, float]:
    """(member, component, share) of the member with the lowest share at column ``index`` of ``result``."""
    if result.thrashing[index]:
        return "all", "thrashing", float("nan")
    m = int(np.nanargmin(result.share_within_goal[:, index]))
    if base is None:
        return result.members[m], "", float(result.share_within_goal[m, index])
    growth = {name: result.breakdown[name][m, index] - base.breakdown[name][m, 0] for name in BREAKDOWN}
    return result.members[m], max(growth, key=growth.get), float(result.share_within_goal[m, index])
