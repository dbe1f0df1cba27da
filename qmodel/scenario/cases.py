"""Scenario results as casebook quantities: one member's value at one distance (registry ``scenario``)."""

from __future__ import annotations

from functools import cache

import numpy as np

from qmodel.errors import InputError
from qmodel.scenario.band import Banded, load_banded
from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.files import shipped_scenarios
from qmodel.scenario.overrides import with_overrides
from qmodel.scenario.result import ScenarioResult


@cache
def shipped_banded(name: str) -> Banded:
    """A shipped scenario and its band's points, read once."""
    shipped = shipped_scenarios()
    if name not in shipped:
        raise InputError("scenario", name, "one of " + ", ".join(sorted(shipped)))
    return load_banded(shipped[name])


@cache
def _solved(
    name: str, distance: float, subchannels: int, metro_mirror: str, point: int, castout_owner: str = ""
) -> ScenarioResult:
    banded = shipped_banded(name)
    scenario = banded.points[point - 1] if point else banded.scenario
    return solve_scenario(
        with_overrides(scenario, subchannels, metro_mirror, castout_owner), np.array([distance])
    )


def scenario_quantity(
    scenario: str,
    member: str,
    distance: float,
    interval: float,
    cf: str,
    subchannels: float,
    metro_mirror: str,
    point: int = 0,
    castout_owner: str = "",
) -> dict[str, float]:
    """Outputs of a shipped scenario at ``distance`` (m) for ``member`` (or "all"), SI units.

    ``transactions`` = throughput × ``interval`` (s); ``cpu_of_one_cp`` the member's CPU as a fraction
    of one CP (RMF APPL%); ``delayed_fraction`` and ``path_rate`` (CF requests per second, all work)
    on the member's path to ``cf``; ``converted`` requests converted to async over the interval;
    ``propagation`` the part every transaction pays.
    ``subchannels`` (if not 0) replaces every path's; ``metro_mirror`` "on"/"off" overrides the file's.
    ``point`` (if not 0) solves the scenario at that point of its band (1 the first) instead.
    ``castout_owner`` (if not empty) replaces the file's (:func:`with_castout_owner`).
    """
    result = _solved(scenario, float(distance), int(subchannels), metro_mirror, point, castout_owner)
    if member == "all":
        values = {
            "response_time": result.total_response_time[0],
            "share_within_goal": result.total_share_within_goal[0],
            "throughput": result.total_throughput[0],
            "cpu_of_one_cp": np.nan,
            "cpu_busy": np.nan,
            "converted": result.converted_rate[:, 0].sum(),
            "propagation": np.nan,
        }
    else:
        if member not in result.members:
            raise InputError("member", member, "all, or one of " + ", ".join(result.members))
        m = result.members.index(member)
        values = {
            "response_time": result.response_time[m, 0],
            "share_within_goal": result.share_within_goal[m, 0],
            "throughput": result.throughput[m, 0],
            "cpu_of_one_cp": result.throughput[m, 0] * result.cpu_per_transaction[m, 0],
            "cpu_busy": result.cpu_busy[m, 0],
            "converted": result.converted_rate[m, 0],
            "propagation": result.fixed_part[m, 0],
        }
    values["transactions"] = values["throughput"] * interval
    values["converted"] = values["converted"] * interval
    path = f"{member}→{cf}"
    values["path_rate"] = result.path_rate[path][0] if path in result.path_rate else np.nan
    values["delayed_fraction"] = (
        result.delayed_fraction[path][0] if path in result.delayed_fraction else np.nan
    )
    return {name: float(value) for name, value in values.items()}
