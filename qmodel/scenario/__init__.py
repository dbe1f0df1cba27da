"""The composed scenario solver: a Parallel Sysplex configuration at a distance, answered end to end.

``load_scenario(path)`` reads and checks a scenario file (:mod:`qmodel.scenario.spec`);
``solve_scenario(scenario, distances=None)`` returns a :class:`ScenarioResult`
(:mod:`qmodel.scenario.result`) with each member's response time and its
breakdown, share within the WLM goal, throughput and CPU at each distance;
``max_distance(scenario)`` the largest distance that keeps the goal
(:mod:`qmodel.scenario.goal`). The steps are in :mod:`qmodel.scenario.compose`.

The command line's default answer carries its band: ``load_banded(path)`` reads the file and the
points of its ``[band]``, ``solve_banded(banded, distances=None)`` solves them all (the answer's
records with ``NAME_low[unit]`` and ``NAME_high[unit]``), ``max_distance_banded(banded)`` gives the
goal seek with its band's ends (:mod:`qmodel.scenario.band`).
"""

from __future__ import annotations

from pathlib import Path

from qmodel.scenario.band import Banded, GoalBand, load_banded, max_distance_banded, solve_banded
from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.fit import with_inferred_locks
from qmodel.scenario.goal import GoalSeek, max_distance
from qmodel.scenario.result import ScenarioResult
from qmodel.scenario.spec import Scenario
from qmodel.scenario.spec import load_scenario as read_scenario


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file, or a shipped one by name (``"gdps-env2"``), with lockable_items
    inferred from its measured lock contention where it gives that instead
    (:func:`qmodel.scenario.fit.with_inferred_locks`); InputError naming the key of anything wrong.

    :param path: a scenario file, or a shipped scenario's name.
    :returns: the checked :class:`Scenario`, values in SI units.
    """
    return with_inferred_locks(read_scenario(path))


__all__ = [
    "Banded",
    "GoalBand",
    "GoalSeek",
    "Scenario",
    "ScenarioResult",
    "load_banded",
    "load_scenario",
    "max_distance",
    "max_distance_banded",
    "solve_banded",
    "solve_scenario",
]
