"""Calibration of a scenario on declared rows: what a scenario file's fitted values come from.

Each function fits one kind of parameter on rows the caller names, so that a
scenario file can say "fitted on the 0 km column" and a test can fit again
and get the file's values back:

- :func:`fit_other`: each member's unexplained time ("other") so that the
  model's response time equals the measured one at one distance;
- :func:`fit_think_time`: each member's think time from its measured
  transactions over an interval, by the response-time law Z = N·T/C − R;
- :func:`fit_lockable_items`: the lock model's effective hot set L from one
  member's response time at one distance, refitting "other" at the base
  distance each time (the two are fitted jointly);
- :func:`fit_lock_span`: the lock span s (the last share of the execution over
  which locks are taken) from one member's transactions at the same distance,
  L refitted for every s tried.

All values in SI units (s, m).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from qmodel.errors import ConvergenceError, InputError
from qmodel.scenario.compose import _solve
from qmodel.scenario.spec import Scenario

_STEPS = 200
_BISECTIONS = 60
_SPAN_STEPS = 16  # lock span to 1/65,536: each step refits lockable_items (seconds)


def _response(scenario: Scenario, distance: float) -> np.ndarray:
    result = _solve(scenario, np.array([distance]), 1.0, with_thrashing_load=False)
    if result.thrashing[0]:
        raise InputError(
            "calibration",
            f"{distance / 1e3:g} km",
            "a distance with a fixed point",
            reason="the scenario thrashes there",
        )
    return result.response_time[:, 0]


def fit_other(scenario: Scenario, distance: float, responses: dict[str, float]) -> Scenario:
    """The scenario with each named member's ``other`` set so that its response time at ``distance`` (m)
    equals ``responses[member]`` (s). Fixed-point steps other += measured − model (the response
    time rises with other at a rate of at least 1)."""
    names = [m.name for m in scenario.members]
    unknown = sorted(set(responses) - set(names))
    if unknown:
        raise InputError("member", unknown[0], ", ".join(names))
    for _ in range(_STEPS):
        model = dict(zip(names, _response(scenario, distance), strict=True))
        gaps = {name: responses[name] - model[name] for name in responses}
        members = tuple(
            replace(m, other=m.other + gaps[m.name]) if m.name in gaps else m for m in scenario.members
        )
        if any(m.other < 0 for m in members):
            bad = next(m for m in members if m.other < 0)
            raise InputError(
                f"measured response of {bad.name}",
                f"{responses[bad.name] * 1e3:g} ms",
                "at least what the model explains",
                reason="other would be negative",
            )
        scenario = replace(scenario, members=members)
        if max(abs(g) for g in gaps.values()) < 1e-12:
            return scenario
    raise ConvergenceError(f"fit of other did not converge in {_STEPS} steps")


def fit_think_time(
    scenario: Scenario, distance: float, transactions: dict[str, float], interval: float
) -> Scenario:
    """The scenario with each named member's think time Z = terminals × interval / transactions − R,
    R the model's response time at ``distance`` (response-time law, Lazowska et al., QSP §3.3)."""
    model = dict(zip((m.name for m in scenario.members), _response(scenario, distance), strict=True))
    members = []
    for member in scenario.members:
        if member.name in transactions:
            think = member.terminals * interval / transactions[member.name] - model[member.name]
            if not think > 0:
                raise InputError(
                    f"transactions of {member.name}",
                    transactions[member.name],
                    "fewer than terminals × interval / response time",
                )
            member = replace(member, think_time=think)
        members.append(member)
    return replace(scenario, members=tuple(members))


def _trial(scenario: Scenario, changes: dict[str, float], base_distance: float,
           base_responses: dict[str, float], distance: float, member: str,
           response: float) -> tuple[float, Scenario]:
    """(model − measured response of ``member`` at ``distance``, s; the trial scenario) for the
    scenario with ``changes``, its ``other`` refitted on the base rows. +inf where the base rows
    cannot take the change, or the distance thrashes."""
    try:
        trial = fit_other(replace(scenario, **changes), base_distance, base_responses)
    except InputError:  # the base rows cannot take this change
        return np.inf, scenario
    result = _solve(trial, np.array([distance]), 1.0, with_thrashing_load=False)
    index = result.members.index(member)
    value = np.inf if result.thrashing[0] else result.response_time[index, 0]
    return value - response, trial


def _bisect(below: Callable[[float], bool], low: float, high: float,
            steps: int = _BISECTIONS) -> tuple[float, float]:
    """The bracket [low, high] narrowed ``steps`` times around where ``below`` turns False."""
    for _ in range(steps):
        middle = (low + high) / 2
        low, high = (middle, high) if below(middle) else (low, middle)
    return low, high


def fit_lockable_items(
    scenario: Scenario,
    base_distance: float,
    base_responses: dict[str, float],
    distance: float,
    member: str,
    response: float,
) -> Scenario:
    """The scenario with ``lockable_items`` L such that ``member``'s response time at ``distance`` is
    ``response`` (s), ``other`` refitted at ``base_distance`` for every L tried (bisection on log L:
    fewer lockable items, more contention)."""

    def excess(items: float) -> tuple[float, Scenario]:
        return _trial(scenario, {"lockable_items": items}, base_distance, base_responses, distance, member,
                      response)

    low, high = np.log(1.0), np.log(1e9)
    if excess(np.exp(high))[0] > 0:
        raise InputError(
            f"response of {member} at {distance / 1e3:g} km",
            f"{response * 1e3:g} ms",
            "more than the model gives without lock contention",
        )
    low, high = _bisect(lambda log_items: excess(np.exp(log_items))[0] > 0, low, high)
    return excess(np.exp(high))[1]


def fit_lock_span(
    scenario: Scenario,
    base_distance: float,
    base_responses: dict[str, float],
    lock_row: tuple[str, float, float],
    span_row: tuple[str, float, float, int],
    interval: float,
) -> Scenario:
    """The scenario with ``lock_span`` s and ``lockable_items`` L fitted jointly at one distance.

    For each s tried, L is fitted on ``lock_row`` (member, distance m, response s) by
    :func:`fit_lockable_items`; s is then the span at which ``span_row``'s member (member, distance m,
    transactions over ``interval`` s, subchannels on every path) completes its measured transactions.
    A longer span holds locks longer: more contention, fewer transactions (a thrashing trial counts as
    none); bisection on s in [0, 1], _SPAN_STEPS steps."""
    member, distance, transactions, subchannels = span_row
    lock_member, lock_distance, lock_response = lock_row

    def trial(span: float) -> tuple[float, Scenario]:
        fitted = fit_lockable_items(replace(scenario, lock_span=span), base_distance, base_responses,
                                    lock_distance, lock_member, lock_response)
        paths = tuple(replace(p, subchannels=subchannels) for p in fitted.paths)
        result = _solve(replace(fitted, paths=paths), np.array([distance]), 1.0, with_thrashing_load=False)
        done = 0.0 if result.thrashing[0] else result.throughput[result.members.index(member), 0] * interval
        return done, fitted

    if trial(0.0)[0] < transactions:
        raise InputError(f"transactions of {member} at {distance / 1e3:g} km", f"{transactions:g}",
                         "at most what the model gives with locks held through the commit alone")
    low, _ = _bisect(lambda span: trial(span)[0] > transactions, 0.0, 1.0, _SPAN_STEPS)
    return trial(low)[1]


def fit_redispatch(
    scenario: Scenario,
    base_distance: float,
    base_responses: dict[str, float],
    distance: float,
    member: str,
    response: float,
) -> Scenario:
    """The scenario with the conversion's ``redispatch`` wait such that ``member``'s response time at
    ``distance`` is ``response`` (s), ``other`` refitted at ``base_distance`` for every value tried
    (bisection between 0 and 10 ms: a longer wait, a longer response where requests are converted).
    A wait the base rows cannot take (their ``other`` would go negative, or the base thrashes) is
    too long; if the longest the base rows take falls short, the InputError says how far it gets."""

    def excess(wait: float) -> tuple[float, Scenario]:
        return _trial(scenario, {"redispatch": wait}, base_distance, base_responses, distance, member,
                      response)

    low, high = 0.0, 10e-3
    if excess(low)[0] > 0:
        raise InputError(f"response of {member} at {distance / 1e3:g} km", f"{response * 1e3:g} ms",
                         "more than the model gives with no redispatch wait")
    low, high = _bisect(lambda wait: excess(wait)[0] < 0, low, high)
    gap, fitted = excess(low)
    if gap < -1e-6 * response:
        reached = (gap + response) * 1e3
        raise InputError(f"response of {member} at {distance / 1e3:g} km", f"{response * 1e3:g} ms",
                         f"at most {reached:.4g} ms (redispatch {low * 1e6:.4g} us, the longest wait the "
                         f"base rows take)", reason="no redispatch wait reaches it")
    return fitted


def fit_cpu(scenario: Scenario, distance: float, member: str, cpu_of_one_cp: float) -> Scenario:
    """The scenario with every member's own CPU per transaction set so that ``member``'s CPU at
    ``distance`` is ``cpu_of_one_cp`` of one CP (RMF APPL%: throughput × CPU per transaction)."""
    result = _solve(scenario, np.array([distance]), 1.0, with_thrashing_load=False)
    m = result.members.index(member)
    measured = cpu_of_one_cp / result.throughput[m, 0]
    own = scenario.members[m].cpu + measured - result.cpu_per_transaction[m, 0]
    if not own > 0:
        raise InputError(f"CPU of {member}", f"{cpu_of_one_cp:.1%} of a CP", "more than its CF spin")
    return replace(scenario, members=tuple(replace(x, cpu=own) for x in scenario.members))


# The rows each GDPS scenario is calibrated on (gdps-pprc-100km-2006.txt), as printed: response times
# in ms, transactions over the 5-minute interval, CPU in % of one CP.
GDPS_ROWS = {
    # Environment 3, adjusted TPNO tables (G1P1: .043 at pprc 0 km, .100 at 70 km; G1P2: .045), Number
    # rows (3388, 3394; G1P2 3241 at 70 km, run with 2 subchannels per image and CF, Appendix A), and
    # G1P2's RMF CICSERV APPL% at 0 km (12.3: the CICS region, where the transaction runs; TOTAL 23.3
    # adds DB2, system and other work the model does not carry). The lock rows are both at 70 km.
    "gdps-env3": {"base": {"G1P1": 43, "G1P2": 45}, "transactions": {"G1P1": 3388, "G1P2": 3394},
                  "locks": ("G1P1", 70, 100), "span": ("G1P2", 70, 3241, 2), "cpu": ("G1P2", 12.3)},
    # Environment 2, TPNO P1 table at pprc 0 km (30 ms, 3401) and the both-members table (34 ms average,
    # 6820): G1P2 = 2 × 34 − 30 = 38 ms over 6820 − 3401 = 3419 transactions
    "gdps-env2": {"base": {"G1P1": 30, "G1P2": 38}, "transactions": {"G1P1": 3401, "G1P2": 3419}},
    # Environment 1, TPNO - G1P1 and - G1P2 tables at pprc 0 km (41 and 35 ms; 3427 and 3373)
    "gdps-env1": {"base": {"G1P1": 41, "G1P2": 35}, "transactions": {"G1P1": 3427, "G1P2": 3373}},
}


def calibrate_gdps() -> dict[str, Scenario]:
    """Fit the shipped GDPS scenarios on their declared rows (GDPS_ROWS); Environment 3 first, its
    lockable_items, lock_span and CPU then carried to Environments 1 and 2 (same workload, LPARs, lock
    structure). Takes a few minutes: every lock span tried refits lockable_items."""
    from qmodel.scenario.files import shipped_scenarios
    from qmodel.scenario.spec import load_scenario

    fitted: dict[str, Scenario] = {}
    carried: dict[str, float] = {}
    for name in ("gdps-env3", "gdps-env2", "gdps-env1"):
        rows = GDPS_ROWS[name]
        scenario = load_scenario(shipped_scenarios()[name])
        base = {member: value / 1e3 for member, value in rows["base"].items()}
        if "locks" in rows:
            member, km, value = rows["locks"]
            span_member, span_km, transactions, subchannels = rows["span"]
            scenario = fit_lock_span(scenario, 0.0, base, (member, km * 1e3, value / 1e3),
                                     (span_member, span_km * 1e3, transactions, subchannels), 300.0)
            carried.update(lockable_items=scenario.lockable_items, lock_span=scenario.lock_span)
        else:
            scenario = replace(scenario, lockable_items=carried["lockable_items"],
                               lock_span=carried["lock_span"])
        if "cpu" in rows:
            member, percent = rows["cpu"]
            scenario = fit_cpu(fit_other(scenario, 0.0, base), 0.0, member, percent / 100)
            carried["cpu"] = scenario.members[0].cpu
        else:
            members = tuple(replace(m, cpu=carried["cpu"]) for m in scenario.members)
            scenario = replace(scenario, members=members)
        scenario = fit_other(scenario, 0.0, base)
        fitted[name] = fit_think_time(scenario, 0.0, rows["transactions"], 300.0)
    return fitted


def main() -> None:
    """Print the fitted values of the shipped GDPS scenarios (python -m qmodel.scenario.calibrate)."""
    for name, scenario in calibrate_gdps().items():
        print(f"{name}: lockable_items = {scenario.lockable_items:.5g}, lock_span = {scenario.lock_span:.2%}")
        for member in scenario.members:
            print(f"  {member.name}: cpu = {member.cpu * 1e3:.4g} ms, other = {member.other * 1e3:.4g} ms, "
                  f"think_time = {member.think_time:.5g} s")


if __name__ == "__main__":
    main()
