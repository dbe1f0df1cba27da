"""A band on every scenario answer: the answer solved again at each point of the scenario's [band].

A scenario whose fitted parameters carry an interval says so in its file::

    [band]
    method = "ends of the principal axes of the 95% joint confidence region of the Env 3 fit"
    points = [ { "locks.lockable_items" = 650, "locks.lock_span" = "15%" }, ... ]

Each point overrides scenario keys, written as the --variants headers write them
(``locks.lock_span``, ``member.G1P2.other``, ``member.*.think_time``,
``path.*.subchannels``) and set by the same override
(:func:`qmodel.scenario.variants.apply_override`); the file with a point's
overrides is checked as a scenario file is, its values read by the one unit
parser. The band of an output is the least and greatest over the nominal solve
and the solves at the points (each over every distance asked at once): the
method the file names says what the points are (the ends of a joint interval,
or a sample of it); the band is no wider than the points it was given.

A scenario without [band] has no band, and every answer says why
(:data:`qmodel.scenario.result.NO_BAND`).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from qmodel.errors import InputError
from qmodel.scenario.compose import _refuse_huge, _solve, refuse_uncarried_background, solve_scenario
from qmodel.scenario.goal import GoalSeek, max_distance
from qmodel.scenario.result import ScenarioResult
from qmodel.scenario.spec import Scenario, ScenarioError, read_scenario_toml, scenario_from_dict
from qmodel.scenario.variants import KEY_FORMS, Column, apply_override, override_column
from qmodel.units import bare_number, with_unit

POINT_KEYS = KEY_FORMS.replace("distance, ", "")  # a point moves parameters, never the distances asked


class Banded(NamedTuple):
    """A scenario and the same at each point of its band (empty: it has none)."""

    scenario: Scenario
    points: tuple[Scenario, ...]

    @property
    def method(self) -> str:
        """How the band's points were chosen, as the file says ("" without a band)."""
        return "" if self.scenario.band is None else self.scenario.band.method


def load_banded(path: str | Path) -> Banded:
    """Read and check a scenario file and its band's points (:func:`band_points`)."""
    raw = read_scenario_toml(path)
    where = Path(path).name
    scenario = scenario_from_dict(raw, where)
    return Banded(scenario, band_points(raw, scenario, where))


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
    return column


def _value(value: object, column: Column) -> object:
    """A point's value as the file holds it; a bare number takes the unit its key gives (``[s]``)."""
    if column.unit is not None and not isinstance(value, bool) and bare_number(str(value)) is not None:
        return with_unit(str(value), column.unit)
    return value


def _blame(tables: dict, overrides: list[tuple[str, Column, object]], where: str, index: int,
           error: ScenarioError) -> InputError:
    """The key of the point whose value alone the scenario refuses, named as the point writes it; the
    scenario's error for the point as a whole where no single value does."""
    for key, column, value in overrides:
        data = copy.deepcopy(tables)
        apply_override(data, column, _value(value, column))
        try:
            scenario_from_dict(data, where)
        except ScenarioError as alone:
            return InputError(f"{where}: band.points[{index}].{key}", alone.value, alone.allowed,
                              reason=alone.reason)
    return InputError(f"{where}: band.points[{index}] ({error.key})", error.value, error.allowed,
                      reason=error.reason)


def solve_banded(banded: Banded, distances: np.ndarray | None = None) -> ScenarioResult:
    """The nominal answer (:func:`qmodel.scenario.compose.solve_scenario`) with the answer at each band
    point in its ``band``: each point solved once over every distance (points × distances, never a
    distance at a time). The whole work, (1 + points) solves, is estimated before any starts."""
    scenario, points = banded
    distances = np.atleast_1d(np.asarray(scenario.distances if distances is None else distances, float))
    if points:
        solves = 1 + len(points)
        for each in (scenario, *points):
            _refuse_huge(each, distances.size * solves, what=f"{distances.size:,} distance(s), each solved"
                         f" {solves} times (the answer and its band's {len(points)} points)")
    nominal = solve_scenario(scenario, distances)
    if not points:
        return nominal
    for point in points:
        refuse_uncarried_background(point)
    at_points = tuple(_solve(point, nominal.distances, 1.0, with_thrashing_load=False, checked=True)
                      for point in points)
    return replace(nominal, band=at_points, band_method=banded.method)


class GoalBand(NamedTuple):
    """The goal seek's answer and its band: the shortest and longest answer over the band's points
    (each a :class:`GoalSeek`, with the member and component that break the goal there)."""

    answer: GoalSeek
    low: GoalSeek | None  # None: no band
    high: GoalSeek | None


def max_distance_banded(banded: Banded, upper: float = 300e3) -> GoalBand:
    """:func:`qmodel.scenario.goal.max_distance` for the scenario and for each point of its band; the
    band's ends are the shortest and longest of all those answers (a goal failing at 0 km the
    shortest; one holding over the whole search the longest)."""
    answer = max_distance(banded.scenario, upper)
    if not banded.points:
        return GoalBand(answer, None, None)
    answers = [answer, *(max_distance(point, upper) for point in banded.points)]
    ordered = sorted(answers, key=lambda seek: -np.inf if np.isnan(seek.distance) else seek.distance)
    return GoalBand(answer, ordered[0], ordered[-1])
