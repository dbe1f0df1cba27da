"""The fixed latency of each crossing (``crossing_latency``): what the route's equipment adds to every round
trip between the sites at a distance, beside the per-km term; its default is the GDPS study's own step."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from qmodel.scenario import load_scenario, solve_scenario
from qmodel.scenario.calibrate import fit_round_trip
from qmodel.scenario.compose import fixed_parts
from qmodel.scenario.schema import key_of
from qmodel.units import parse_value

ENV2 = load_scenario("gdps-env2")
DEFAULT = parse_value("crossing_latency", str(key_of("", "crossing_latency").default), "us") * 1e-6


def test_the_default_is_the_step_the_studys_rmf_rows_give_beside_the_per_km_term() -> None:
    stepped = fit_round_trip(with_step=True)
    assert f"{stepped.step * 1e6:.3g}" == f"{DEFAULT * 1e6:.3g}"  # 138 us, the schema's source says so
    low, high = stepped.step_interval()
    assert low < DEFAULT * 1e6 < high
    # the range a file that leaves it out is banded across: the fit's 95% interval, as the schema writes it
    supported = key_of("", "crossing_latency").supported
    assert supported == (f"{low:.0f}us", f"{high:.0f}us")
    assert f"{stepped.per_metre * 1e9:.3g}" == "9.79"  # us/km per round trip, beside the step
    # through the origin the per-km term carries the step: steeper (11.67 us/km)
    assert fit_round_trip().per_metre > stepped.per_metre


@pytest.mark.parametrize("latency", [50e-6, 138e-6, 1e-3])
def test_every_round_trip_across_the_distance_gains_the_latency_and_nothing_else_does(latency: float) -> None:
    km = np.array([0.0, 20e3, 70e3])
    without = fixed_parts(replace(ENV2, crossing_latency=0.0), km)
    with_it = fixed_parts(replace(ENV2, crossing_latency=latency), km)
    assert with_it.round_trip[..., 0] == pytest.approx(without.round_trip[..., 0])  # 0 km: no equipment
    across = without.round_trip[..., 1:] > 0  # between the sites
    gained = (with_it.round_trip - without.round_trip)[..., 1:]
    assert gained[across] == pytest.approx(latency, rel=1e-9)
    assert np.all(gained[~across] == 0)  # within a site: nothing
    # the propagation every transaction pays grows by the latency times its round trips, as at a distance
    far = latency * ENV2.fibre_speed / 2  # the fibre as long as the equipment
    longer = fixed_parts(replace(ENV2, crossing_latency=0.0), km[1:] + far)
    assert with_it.fixed_part[:, 1:] == pytest.approx(longer.fixed_part, rel=1e-9)


def test_the_response_time_grows_with_the_latency_at_a_distance_and_not_at_0_km() -> None:
    km = np.array([0.0, 40e3])
    results = [
        solve_scenario(replace(ENV2, crossing_latency=latency), km) for latency in (0.0, 100e-6, 300e-6)
    ]
    at_zero = [r.response_time[:, 0] for r in results]
    at_40 = [r.response_time[:, 1] for r in results]
    assert at_zero[0] == pytest.approx(at_zero[1]) and at_zero[0] == pytest.approx(at_zero[2])
    assert np.all(at_40[0] < at_40[1]) and np.all(at_40[1] < at_40[2])


@pytest.mark.parametrize(("measured_at", "before"), [(0.0, True), (1e3, False)])
def test_the_narrowing_line_asks_for_the_planned_routes_latency_where_the_sites_are_side_by_side(
    measured_at: float, before: bool
) -> None:
    """Where crossing_latency is the band's largest part: measured at a distance, a round trip between the
    sites measured today gives it; measured at 0 km no such route exists yet (trial 7, N4), so the line
    asks for what a planner has before the move (the DWDM or carrier's figure, or a test link)."""
    from qmodel.scenario.band import NARROW, Banded, narrowing

    # small latencies: the study's sync times, read at 1 km, must still hold two round trips each
    scenario = replace(ENV2, measured_at=measured_at, crossing_latency=30e-6)
    points = tuple(replace(scenario, crossing_latency=latency) for latency in (5e-6, 55e-6))
    banded = Banded(scenario, points, (0.25, 0.25), measured_at=measured_at, ranged=("crossing_latency",) * 2)
    at = np.array([40e3])
    response = np.stack([solve_scenario(each, at).response_time for each in (scenario, *points)])
    said = narrowing(banded, response, np.zeros_like(response), banded.all_weights())
    assert said == NARROW["crossing_latency_before" if before else "crossing_latency"]
    assert ("today's distance" in said) is not before
    assert ("side by side today" in said) is before
