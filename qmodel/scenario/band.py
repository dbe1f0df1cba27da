"""A band on every scenario answer: the answer solved again at each point of the scenario's [band].

A scenario whose fitted parameters carry an interval says so in its file::

    [band]
    method = "ends of the principal axes of the 95% joint confidence region of the Env 3 fit"
    points = [ { "locks.lockable_items" = 650, "locks.lock_span" = "15%" }, ... ]
    error = { response_time = "24%", throughput = "1.7%" }   # optional

Each point overrides scenario keys, written as the --variants headers write them
(``locks.lock_span``, ``member.G1P2.other``, ``member.*.think_time``,
``path.*.subchannels``) and set by the same override
(:func:`qmodel.scenario.overrides.apply_override`); the file with a point's
overrides is checked as a scenario file is, its values read by the one unit
parser. The band of an output is the union of each solve's prediction interval
over the nominal solve and the solves at the points (each over every distance
asked at once): the method the file names says what the points are (the ends of
a joint interval, or a sample of it) and where the error comes from. A solve's
prediction interval is its value where the file declares no ``error``; with
one, the value widened by the model's own error (its relative error on response
times and on throughput, measured where the parameters were fitted; the share
within the goal as that of response times so much longer or shorter:
:meth:`qmodel.scenario.result.ScenarioResult.band_values`).

A scenario without [band] has no band, and every answer says why
(:data:`qmodel.scenario.result.NO_BAND`).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from qmodel import frames
from qmodel.errors import InputError
from qmodel.scenario.compose import (
    fixed_parts,
    refuse_huge,
    refuse_uncarried_background,
    solve_at,
    solve_scenario,
)
from qmodel.scenario.fit import with_inferred_locks
from qmodel.scenario.goal import TOLERANCE, GoalSeek, goal_failing, max_distance
from qmodel.scenario.overrides import KEY_FORMS, Column, apply_override, first_refused, override_column
from qmodel.scenario.result import ScenarioResult
from qmodel.scenario.spec import Scenario, ScenarioError, read_scenario_toml, scenario_from_dict
from qmodel.units import bare_number, with_unit

POINT_KEYS = KEY_FORMS.replace("distance, ", "")  # a point moves parameters, never the distances asked
# iterations of F(R) allowed a solve started at its own fixed point (it settles in the first)
_SETTLE = 5


class Banded(NamedTuple):
    """A scenario and the same at each point of its band (empty: it has none)."""

    scenario: Scenario
    points: tuple[Scenario, ...]

    @property
    def method(self) -> str:
        """How the band's points were chosen, as the file says ("" without a band)."""
        return "" if self.scenario.band is None else self.scenario.band.method

    @property
    def error(self) -> dict[str, float]:
        """The model's own error the file declares beyond the points' ([band] error; empty: none)."""
        return {} if self.scenario.band is None else self.scenario.band.error


def load_banded(path: str | Path) -> Banded:
    """Read and check a scenario file and its band's points (:func:`band_points`).

    :param path: a scenario file's path (a shipped one: :func:`qmodel.scenario.files.resolve_scenario`).
    :returns: the scenario and the same at each point of its ``[band]`` (:class:`Banded`).
    :raises InputError: naming the file, the key (a band point's too) and what is allowed.
    """
    raw = read_scenario_toml(path)
    where = Path(path).name
    scenario = with_inferred_locks(scenario_from_dict(raw, where))  # lockable_items from measured_wait
    return Banded(scenario, tuple(with_inferred_locks(point) for point in band_points(raw, scenario, where)))


def band_points(raw: dict, scenario: Scenario, where: str) -> tuple[Scenario, ...]:
    """The scenario at each point of its [band] (``scenario.band``, read from ``raw``, the file's
    tables): the tables with the point's overrides, checked as a scenario file. A key that names
    nothing of the scenario, or a value the key does not take, is an InputError naming the file, the
    point and the key (``gdps-env2.toml: band.points[2].locks.lock_span``)."""
    if scenario.band is None:
        return ()
    tables = {key: value for key, value in raw.items() if key != "band"}
    points = []
    for index, point in enumerate(scenario.band.points, 1):
        overrides = [(key, _column(tables, key, where, index), value) for key, value in point.items()]
        data = copy.deepcopy(tables)
        for _, column, value in overrides:
            apply_override(data, column, _value(value, column))
        try:
            points.append(scenario_from_dict(data, where))
        except ScenarioError as error:
            raise _blame(tables, overrides, where, index, error) from None
    return tuple(points)


def _column(tables: dict, key: str, where: str, index: int) -> Column:
    """The override a point's key names (as a --variants header), refused in one line if none."""
    name = f"{where}: band.points[{index}]"
    try:
        column = override_column(0, key, tables, where)
    except InputError as error:
        raise InputError(name, key, error.allowed, reason=error.reason) from None
    if column is None or column.key == ("distance",):
        raise InputError(name, key, f"a dotted scenario key: {POINT_KEYS}",
                         reason="the band is solved at every distance asked" if column else "unknown key")
    if column.key[0] == "goal":  # the band is stated under the file's goal: a point may not move it
        raise InputError(name, key, "a key other than goal.*: the band is judged against the file's [goal]",
                         reason="a point may not redefine the goal")
    return column


def _value(value: object, column: Column) -> object:
    """A point's value as the file holds it; a bare number takes the unit its key gives (``[s]``)."""
    if column.unit is not None and not isinstance(value, bool) and bare_number(str(value)) is not None:
        return with_unit(str(value), column.unit)
    return value


def _blame(tables: dict, overrides: list[tuple[str, Column, object]], where: str, index: int,
           error: ScenarioError) -> InputError:
    """The key of the point whose value alone the scenario refuses (:func:`first_refused`), named as the
    point writes it; the scenario's error for the point as a whole where no single value does."""
    values = [(column, _value(value, column)) for _, column, value in overrides]
    refused = first_refused(tables, values, where)
    if refused is not None:
        place, alone = refused
        return InputError(f"{where}: band.points[{index}].{overrides[place][0]}", alone.value, alone.allowed,
                          reason=alone.reason)
    return InputError(f"{where}: band.points[{index}] ({error.key})", error.value, error.allowed,
                      reason=error.reason)


def solve_banded(banded: Banded, distances: np.ndarray | None = None) -> ScenarioResult:
    """The nominal answer (:func:`qmodel.scenario.compose.solve_scenario`) with the answer at each band
    point in its ``band``: each point solved once over every distance (points × distances, never a
    distance at a time), and with a declared response-time error each solve's :func:`share_ends`.
    The whole work, (1 + points) solves and as many again for their share ends, is estimated before
    any starts.

    :param banded: the scenario and its band's points (:func:`load_banded`).
    :param distances: the distances between the sites, m; None: the file's own.
    :returns: the answer with its band: :class:`ScenarioResult` whose ``band`` holds the points' answers
        (records with ``NAME_low[unit]`` and ``NAME_high[unit]``).
    :raises InputError: a solve too large to compute, with its estimate.
    """
    scenario, points = banded
    distances = np.atleast_1d(np.asarray(scenario.distances if distances is None else distances, float))
    error = banded.error.get("response_time")
    if points:
        # a solve's two share ends cost at most 2 × _SETTLE evaluations: counted as one more solve each
        solves = (1 + len(points)) * (1 if error is None else 2)
        ends = "" if error is None else ", and each one's share within the goal at its error's two ends"
        for each in (scenario, *points):
            refuse_huge(each, distances.size * solves, what=f"{distances.size:,} distance(s), each solved"
                         f" {solves} times (the answer and its band's {len(points)} points{ends})")
    nominal = solve_scenario(scenario, distances)
    if not points:
        return nominal
    for point in points:
        refuse_uncarried_background(point)
    at_points = tuple(solve_at(point, nominal.distances, 1.0, with_thrashing_load=False, checked=True)
                      for point in points)
    if error is not None:
        nominal = replace(nominal, share_ends=share_ends(scenario, nominal, error))
        at_points = tuple(replace(result, share_ends=share_ends(point, result, error))
                          for point, result in zip(points, at_points, strict=True))
    return replace(nominal, band=at_points, band_method=banded.method, band_error=banded.error)


def share_ends(scenario: Scenario, result: ScenarioResult, error: float) -> tuple[np.ndarray, np.ndarray]:
    """(M, D) the share of ``result``'s transactions (``scenario`` solved) within the goal time
    ÷ (1 + ``error``) and ÷ (1 − ``error``): the share within the goal of response times (1 ± error)
    times as long, by the solver's own distribution (the goal time enters nothing but the share). Each
    is ``scenario`` solved again with that goal time where ``result`` has a response time, started at
    it (its fixed point: settled in one step); NaN where it has none."""
    answered = ~result.thrashing
    ends = (np.full(result.response_time.shape, np.nan), np.full(result.response_time.shape, np.nan))
    if answered.any():
        distances = result.distances[answered]
        fixed = fixed_parts(scenario, distances)
        for end, factor in zip(ends, (1 + error, 1 - error), strict=True):
            end[:, answered] = solve_at(
                replace(scenario, goal_time=scenario.goal_time / factor), distances, 1.0,
                with_thrashing_load=False, max_iterations=_SETTLE, below=result.response_time[:, answered],
                fixed=fixed, checked=True).share_within_goal
    return ends


class GoalBand(NamedTuple):
    """The goal seek's answer and its band's ends (:func:`max_distance_banded`), each a
    :class:`GoalSeek` with the member and component that break the goal there."""

    answer: GoalSeek
    low: GoalSeek | None  # None: no band
    high: GoalSeek | None

    def to_json(self) -> dict[str, object]:
        """One record (keys: :func:`qmodel.frames.key`): the largest distance, the member and component
        breaking the goal, each beside its band's ends' (``max_distance_low[km]``, ...; None without a
        band: :meth:`GoalSeek.record`); whether the goal holds beyond the search, its tolerance and reach."""
        ends = (("", self.answer), ("low", self.low), ("high", self.high))
        records = [dict.fromkeys(self.answer.record(end)) if seek is None else seek.record(end)
                   for end, seek in ends]  # each field the answer's, then beside it the ends'
        fields = zip(*(record.items() for record in records), strict=True)
        distance, member, component = (dict(pairs) for pairs in fields)
        answer = self.answer.to_json()
        search = {name: answer[name] for name in ("goal_holds_beyond_search", "tolerance[km]",
                                                  "searched_to[km]")}
        return {**distance, **search, **member, **component}

    def records(self) -> list[dict[str, object]]:
        """:meth:`to_json` as the one row of a table."""
        return [self.to_json()]

    def to_frame(self):
        """:meth:`records` as a pandas DataFrame."""
        return frames.to_frame(self.records())

    def _repr_html_(self) -> str:
        seeks = (("answer", self.answer), ("band low", self.low), ("band high", self.high))
        rows = [{"": name, **seek.record()} for name, seek in seeks if seek is not None]
        searched = f"searched to {self.answer.searched / 1e3:g} km, to within {TOLERANCE:g} m"
        return frames.html("goal seek: the largest distance that keeps the goal, with its band", rows,
                           lines=[searched])


def max_distance_banded(banded: Banded, upper: float = 300e3) -> GoalBand:
    """:func:`qmodel.scenario.goal.max_distance` for the scenario, and the band's ends: where the
    share within the goal's low end (high end) stops meeting the goal (:meth:`ScenarioResult.band_values`),
    the shortest (longest) of the answers of the scenario and each point of its band, each with its goal
    time ÷ (1 ± the declared response-time error) (:func:`share_ends`; without one, the goal as it is).
    A goal failing at 0 km is the shortest; one holding over the whole search the longest.

    Only the end's own seek is searched to the end (:func:`_shortest`, :func:`_longest`): a candidate
    that cannot be the shortest (longest) is set aside after one solve.

    :param banded: the scenario and its band's points.
    :param upper: how far to search, m.
    :returns: the goal seek's answer and its band's low and high ends, each a :class:`GoalSeek` (distances
        in m, shown in km; :meth:`GoalBand.to_json` in km).
    """
    scenario = banded.scenario
    answer = max_distance(scenario, upper)
    if not banded.points:
        return GoalBand(answer, None, None)
    error = banded.error.get("response_time", 0.0)
    # the candidates from the longest response time to the shortest at the answer's distance: the
    # shortest seek is most likely first, the longest last (the order saves work, never changes an end)
    probe = np.array([0.0 if np.isnan(answer.distance) else answer.distance])
    longest_response = [np.nan_to_num(goal_failing(each, probe, None)[1].response_time, nan=np.inf).max()
                        for each in (scenario, *banded.points)]
    solves = [each for _, each in sorted(zip(longest_response, (scenario, *banded.points), strict=True),
                                         key=lambda pair: -pair[0])]
    low = _shortest([replace(each, goal_time=each.goal_time / (1 + error)) for each in solves], upper)
    high = _longest([replace(each, goal_time=each.goal_time / (1 - error)) for each in solves[::-1]], upper)
    return GoalBand(answer, low, high)


def _shortest(candidates: list[Scenario], upper: float) -> GoalSeek:
    """The shortest of the candidates' :func:`max_distance` answers: each searched only up to the
    shortest so far (the answer within it does not depend on how far the search goes), so a candidate
    whose goal holds that far costs the search's first solve, and is not the shortest."""
    shortest = max_distance(candidates[0], upper)
    for candidate in candidates[1:]:
        if np.isnan(shortest.distance):
            break  # the goal fails at 0 km already: none is shorter
        seek = max_distance(candidate, max(shortest.distance, TOLERANCE))
        if seek.member and not seek.distance >= shortest.distance:  # breaks the goal short of it
            shortest = seek
    return shortest


def _longest(candidates: list[Scenario], upper: float) -> GoalSeek:
    """The longest of the candidates' :func:`max_distance` answers: a candidate whose goal already fails
    at the longest so far (one solve: the goal, once failed, keeps failing further out) is not searched."""
    longest = max_distance(candidates[0], upper)
    for candidate in candidates[1:]:
        if not longest.member:
            break  # the goal holds over the whole search: none is longer
        known = 0.0 if np.isnan(longest.distance) else longest.distance
        if not goal_failing(candidate, np.array([known]), None)[0][0]:
            seek = max_distance(candidate, upper)
            if not seek.member or seek.distance > known or np.isnan(longest.distance):
                longest = seek
    return longest
