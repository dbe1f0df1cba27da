"""The composed scenario solver: a Parallel Sysplex configuration at a distance, answered end to end.

``load_scenario(path)`` reads and checks a scenario file (:mod:`qmodel.scenario.spec`);
``solve_scenario(scenario, distances=None)`` returns a :class:`ScenarioResult`
(:mod:`qmodel.scenario.result`) with each member's response time and its
breakdown, share within the WLM goal, throughput and CPU at each distance;
``max_distance(scenario)`` the largest distance that keeps the goal
(:mod:`qmodel.scenario.goal`). The steps are in :mod:`qmodel.scenario.compose`.
"""

from __future__ import annotations

from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.goal import GoalSeek, max_distance
from qmodel.scenario.result import ScenarioResult
from qmodel.scenario.spec import Scenario, load_scenario

__all__ = ["GoalSeek", "Scenario", "ScenarioResult", "load_scenario", "max_distance", "solve_scenario"]
