"""Goal seek: the largest distance at which every member still meets the WLM goal, and what breaks it."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from qmodel import frames
from qmodel.errors import InputError
from qmodel.output import format_number
from qmodel.scenario.compose import FixedParts, fixed_parts, solve_at, thrashing_load
from qmodel.scenario.predictive import critical_mean, critical_ratio
from qmodel.scenario.protocols import reach
from qmodel.scenario.result import BREAKDOWN, ScenarioResult, remedies
from qmodel.scenario.spec import Scenario

FIRST_STEP = 5e3  # m: the ladder's first rung; each further rung doubles the distance
TOLERANCE = 50.0  # m: the answer lies within this of the distance where the goal first fails
# at most this many intervals in a round's grid: a bracket up to 4096 × TOLERANCE (204.8 km) wide is
# narrowed to TOLERANCE in one round, a wider one (--up-to beyond 400 km) 4096-fold a round
ROUND_INTERVALS = 4096
# a distance still unsettled after this many iterations counts as failing: one that meets the goal has a
# short response time, reached in a few iterations; only distances near thrashing are slow
ITERATIONS = 60
# a response time this much (relative) past the longest that meets the goal fails it, whatever the
# critical ratio's own precision (about 1e-10)
DECIDED = 1e-6

SATURATED = "saturated volumes"  # the culprit where the volumes' other work alone saturates them
OPEN = "load beyond capacity"  # a member's load more than its CPs or subchannels carry


class GoalSeek(NamedTuple):
    """The answer: the largest distance (m) keeping the goal, the member that breaks it past there and why.

    ``distance`` is NaN when the goal fails already at 0 km; ``member`` is ""
    when the goal holds over the whole searched range (up to ``searched``). Where lock contention
    thrashes just past the distance (or at 0 km), ``remedies`` are those that apply there
    (:func:`qmodel.scenario.result.remedies`).
    """

    distance: float
    searched: float
    member: str
    component: str  # the breakdown component that grew most from 0 km, or "thrashing"
    share: float  # the member's share within the goal just past the distance
    remedies: tuple[str, ...] = ()

    @property
    def holds_throughout(self) -> bool:
        """The goal holds at every distance searched (no member breaks it): the answer is not known, only
        that it lies beyond the search."""
        return not self.member

    @property
    def held_km(self) -> float | None:
        """The distance in km to 0.1 km, rounded down (the goal is known to hold there: the search is good
        to TOLERANCE, 50 m); None where the goal fails at 0 km already."""
        return None if np.isnan(self.distance) else math.floor(self.distance / 100) / 10

    def record(self, end: str = "") -> dict[str, object]:
        """The answer as a record (keys: :func:`qmodel.frames.key`): ``max_distance[km]`` (:attr:`held_km`;
        None where the goal fails at 0 km or holds throughout), ``breaking_member`` and
        ``breaking_component`` (None where the goal holds throughout); ``end`` ("low", "high") names a
        band's end: ``max_distance_low[km]``."""
        tail = f"_{end}" if end else ""
        return {
            frames.key(f"max_distance{tail}", "km"): None if self.holds_throughout else self.held_km,
            f"breaking_member{tail}": self.member or None,
            f"breaking_component{tail}": self.component or None,
        }

    def to_json(self) -> dict[str, object]:
        """:meth:`record`, whether the goal holds beyond the search, the search's tolerance and reach (km),
        the breaking member's share within the goal just past the distance (%) and the remedies."""
        return {
            **self.record(),
            "goal_holds_beyond_search": self.holds_throughout,
            "tolerance[km]": TOLERANCE / 1e3,
            "searched_to[km]": self.searched / 1e3,
            "share_within_goal[%]": None if np.isnan(self.share) else self.share * 100,
            "remedies": list(self.remedies),
        }

    def __repr__(self) -> str:
        """In km, as the answer is read: ``GoalSeek(distance=65.6 km, searched=300 km, ...)``."""
        distance = "nan" if self.held_km is None else f"{self.held_km:g} km"
        share = "nan" if np.isnan(self.share) else f"{format_number(self.share * 100)}%"
        return (
            f"GoalSeek(distance={distance}, searched={self.searched / 1e3:g} km, member={self.member!r}, "
            f"component={self.component!r}, share={share}, remedies={self.remedies!r})"
        )

    def _repr_html_(self) -> str:
        return frames.html("goal seek: the largest distance that keeps the goal", [self.to_json()])


class _Round(NamedTuple):
    """Where the goal first fails on one round's grid, and a solve that holds that distance."""

    first: int | None  # grid index of the first failing distance; None where every distance meets the goal
    result: ScenarioResult  # solved at the grid distances ``columns``
    columns: np.ndarray  # grid indices, ascending; ``first`` and the index before it are among them


def goal_failing(
    scenario: Scenario,
    distances: np.ndarray,
    below: np.ndarray | None,
    fixed: FixedParts | None = None,
    *,
    past_goal: bool = False,
) -> tuple[np.ndarray, ScenarioResult]:
    """Where the goal fails (D,) at ``distances`` (m): a member's share within the goal below the goal
    share, or no response time (thrashing), and the solve it is read from.

    :param below: response times (M, 1) s below the answer at every distance (:func:`solve_at`).
    :param fixed: the load-free parts at ``distances`` where the caller has them.
    :param past_goal: the distances after the first stop iterating once a member's response time passes
        the longest that meets the goal (:func:`qmodel.scenario.predictive.critical_mean`, by DECIDED:
        beyond the critical ratio's precision): the iteration climbs from below, so the goal fails there,
        and the solve shows such a distance as thrashing, its values unsolved. For a caller that reads
        only where the goal first fails, and the first distance whole (the ladder).
    """
    ceiling = None
    if past_goal:
        fixed = fixed_parts(scenario, distances) if fixed is None else fixed
        ratio = critical_ratio(scenario.member_shapes, scenario.goal_share)
        fixed_part = np.broadcast_to(fixed.fixed_part, (len(scenario.members), distances.size))
        ceiling = critical_mean(scenario.goal_time, fixed_part, ratio) * (1 + DECIDED)
        ceiling[:, :1] = np.inf
    result = solve_at(
        scenario,
        distances,
        1.0,
        with_thrashing_load=False,
        max_iterations=ITERATIONS,
        below=below,
        fixed=fixed,
        ceiling=ceiling,
    )
    meets = (result.share_within_goal >= scenario.goal_share).all(axis=0) & ~result.thrashing
    return ~meets, result


def stride(points: int) -> int:
    """How many distances apart the first of a round's two solves takes its distances, for a grid of
    ``points``: ceil(sqrt(points - 1)), which makes the two solves' distances together fewest (about
    2 sqrt(points)): 8 for 64 points, 64 for 4097."""
    return max(1, math.ceil(math.sqrt(points - 1)))


def first_goal_failing(scenario: Scenario, grid: np.ndarray, below: np.ndarray | None) -> _Round:
    """The first distance of ``grid`` at which the goal fails, found with two solves of about
    sqrt(grid.size) distances each (:func:`stride`): every stride-th distance and the last, then every
    distance between the last one meeting the goal and the first failing it. The share within the goal
    falls as the distance grows and thrashing, once begun, persists (the refinement into rounds rests on
    the same order), so the goal fails from some distance on, and that distance lies between the last
    coarse distance meeting the goal and the first failing it.

    Each distance is solved on its own (the fixed point's columns do not interact), so the answer
    and the values at it are those of one solve over the whole grid. The load-free parts are computed
    once for the whole grid (their cost is per call, hardly per distance) and shared by both solves."""
    fixed = fixed_parts(scenario, grid)
    step = stride(grid.size)
    coarse = np.minimum(np.arange(0, grid.size + step - 1, step), grid.size - 1)  # of 64: 0, 8, ..., 56, 63
    failing, result = goal_failing(scenario, grid[coarse], below, fixed.at(coarse))
    if not failing.any():
        return _Round(None, result, coarse)
    place = int(np.argmax(failing))
    if place == 0:
        return _Round(0, result, coarse)
    columns = np.arange(coarse[place - 1], coarse[place] + 1)
    failing, fine = goal_failing(scenario, grid[columns], below, fixed.at(columns))
    return _Round(int(columns[np.argmax(failing)]), fine, columns)


def round_grid(low: float, high: float) -> np.ndarray:
    """A refinement round's distances (m), evenly from ``low`` to ``high``: intervals narrower than
    TOLERANCE where at most ROUND_INTERVALS of them do it (the round ends the search), else
    ROUND_INTERVALS of them."""
    intervals = min(math.floor((high - low) / TOLERANCE) + 1, ROUND_INTERVALS)
    return np.linspace(low, high, intervals + 1)


def ladder(upper: float) -> np.ndarray:
    """The distances (m) the search brackets the answer with: 0, FIRST_STEP, twice that, four times, ...,
    and ``upper`` itself; the rungs below ``upper`` do not depend on it."""
    rungs = FIRST_STEP * 2.0 ** np.arange(max(0, int(np.ceil(np.log2(upper / FIRST_STEP)))))
    return np.concatenate([[0.0], rungs[rungs < upper], [upper]])


def max_distance(scenario: Scenario, upper: float = 300e3) -> GoalSeek:
    """The largest distance in [0, upper] m at which every member's share within the goal time reaches
    the goal share, to within TOLERANCE (50 m) below the first distance where it fails.

    The search rests on one order: once the goal fails (a share below the goal share, or thrashing) it
    keeps failing further out, as every request's propagation grows with distance. It brackets the
    answer with one solve of the :func:`ladder` (0, 5, 10, 20, ... km, at most 2 + log2(upper / 5 km)
    distances, the same rungs whatever ``upper``; a rung past the first stops once it surely fails:
    ``past_goal``): the last rung meeting the goal and the first failing it. Rounds over the bracket
    (:func:`round_grid`, two solves of about sqrt(width / TOLERANCE) distances each:
    :func:`first_goal_failing`) then narrow it below TOLERANCE: one round for a bracket up to 204.8 km
    wide (every ``upper`` up to 400 km), ceil(log4096(width / 50 m)) rounds, at most 3
    for any ``upper`` below 10^9 km. So the answer does not depend on ``upper`` beyond the tolerance.
    Were a scenario not monotone (the goal failing at some distance, met again further out), the answer
    is the end of the first stretch from 0 km that meets the goal: a distance the goal holds up to, never
    one beyond a failure. The 0 km solve is the base the breaking component is measured from.

    :param scenario: the scenario.
    :param upper: how far to search, m (300 km by default).
    :returns: the largest distance, m, that keeps the goal, the member and component that break it past
        there, and the remedies where lock contention thrashes (:class:`GoalSeek`; shown in km).
    :raises InputError: ``upper`` not above 0.
    """
    if not upper > 0:
        raise InputError("--up-to", upper, "a distance > 0 km")
    upper = min(upper, reach(scenario))  # no farther than a typed link or zHyperLink reaches
    rungs = ladder(upper)
    failing, base = goal_failing(scenario, rungs, None, past_goal=True)
    if failing[0]:
        return _answer(scenario, float("nan"), upper, base, 0, None)
    if not failing.any():
        return GoalSeek(upper, upper, "", "", float("nan"))
    first = int(np.argmax(failing))
    low, high = rungs[first - 1], rungs[first]
    below = base.response_time[:, first - 1 : first]  # R grows with distance: a start from below
    while True:  # at least one round: the ladder's failing rungs are not solved past the goal
        grid = round_grid(low, high)
        found = first_goal_failing(scenario, grid, below)
        # the bracket's ends were decided by an earlier solve from another start; should this one, a
        # few iterations nearer the answer, decide an end otherwise, the earlier verdict stands
        first = min(max(grid.size - 1 if found.first is None else found.first, 1), grid.size - 1)
        at = int(np.searchsorted(found.columns, first))  # the first failing distance's column in the solve
        low, high = grid[first - 1], grid[first]
        solved = found.result
        below = solved.response_time[:, at - 1 : at]
        if high - low <= TOLERANCE:
            break
    return _answer(scenario, float(low), upper, solved, at, base)


def failing_today(scenario: Scenario) -> tuple[str, str, float] | None:
    """Where the goal already fails at the file's own distance, ``measured_at`` (above 0 km), under the
    model: (member, component, share) of the member with the least share within the goal there, its
    largest part and that share (:func:`_culprit` with no base; ("all", "thrashing", NaN) where no
    response time exists); None where the goal holds there, or the file is measured at 0 km. One solve at
    ``measured_at``, as :func:`max_distance` solves each distance."""
    if not scenario.measured_at > 0:
        return None
    failing, result = goal_failing(scenario, np.array([scenario.measured_at]), None)
    return _culprit(result, 0, None) if failing[0] else None


def _answer(
    scenario: Scenario,
    distance: float,
    upper: float,
    result: ScenarioResult,
    index: int,
    base: ScenarioResult | None,
) -> GoalSeek:
    """The answer, its culprit at column ``index`` of ``result``, and where that is thrashing the remedies
    there, read from the search for the load at which it begins (as the table's notes read them)."""
    culprit = _culprit(result, index, base)
    if culprit[1] != "thrashing":
        return GoalSeek(distance, upper, *culprit)
    where = result.distances[index : index + 1]
    edge_share = thrashing_load(scenario, where)[1]
    return GoalSeek(
        distance,
        upper,
        *culprit,
        remedies(float(where[0]), edge_share["subchannel_wait"][:, 0], edge_share["io_queue"][:, 0]),
    )


def _culprit(result: ScenarioResult, index: int, base: ScenarioResult | None) -> tuple[str, str, float]:
    """(member, component, share) of the member with the lowest share at column ``index`` of ``result``,
    the component the part of its response time that grew most from ``base`` (0 km), or with no base
    (the goal fails at 0 km) its largest part; where no response time exists, the component says why:
    "saturated volumes" or "thrashing"."""
    if result.thrashing[index]:
        open_saturated = result.open_saturated is not None and bool(result.open_saturated[index])
        why = SATURATED if result.disk_saturated[index] else OPEN if open_saturated else "thrashing"
        return "all", why, float("nan")
    m = int(np.nanargmin(result.share_within_goal[:, index]))
    growth = {
        name: result.breakdown[name][m, index] - (0.0 if base is None else base.breakdown[name][m, 0])
        for name in BREAKDOWN
    }
    worst = max(growth, key=lambda name: growth[name])
    return result.members[m], worst, float(result.share_within_goal[m, index])
