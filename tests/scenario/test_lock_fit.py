"""The lock fit's calibration set, Environment 3, and what it rests on (qmodel.scenario.calibrate): the
round trip per km fitted on the study's RMF service times, and the 2-subchannel runs the lock law must
explain (the study ran them; a law that holds locks over the subchannel queue had no answer there)."""

from dataclasses import replace

import numpy as np

from qmodel.scenario import load_scenario, solve_scenario
from qmodel.scenario.calibrate import ROUND_TRIP_KM, ROUND_TRIP_ROWS, fit_round_trip
from qmodel.scenario.files import resolve_scenario, shipped_scenarios

ENV3 = load_scenario(resolve_scenario("gdps-env3"))
TWO_SUBCHANNELS = replace(ENV3, paths=tuple(replace(p, subchannels=2) for p in ENV3.paths))


def test_the_round_trip_per_km_is_the_least_squares_slope_of_every_rows_growth() -> None:
    fit = fit_round_trip()
    distance = np.array(ROUND_TRIP_KM[1:], float)
    # normal equation of a fit through the origin: the residuals are orthogonal to the distances
    assert abs((fit.residuals * distance).sum()) < 1e-6 * np.abs(fit.residuals).sum() * distance.max()
    # G1P1's GBP8 secondary (205 µs at 0 km, 1335 at 100 km) alone grows 11.3 µs/km: the fit is near it
    assert 10.5 < fit.per_metre * 1e9 < 12.5
    low, high = fit.interval()
    assert low < fit.per_metre * 1e9 < high
    assert len(ROUND_TRIP_ROWS) * (len(ROUND_TRIP_KM) - 1) == fit.residuals.size


def test_every_shipped_gdps_scenario_carries_the_fitted_round_trip() -> None:
    fitted = fit_round_trip().fibre_speed
    for name in ("gdps-env1", "gdps-env2", "gdps-env3"):  # written with 6 significant digits
        assert abs(load_scenario(shipped_scenarios()[name]).fibre_speed / fitted - 1) < 1e-5, name


def test_the_2_subchannel_runs_have_an_answer_at_every_distance_the_study_ran() -> None:
    # the study ran them (G1P2: 3361, 3322, 3241, 3079 transactions); the fitted law answers each
    result = solve_scenario(TWO_SUBCHANNELS, np.array([20e3, 40e3, 70e3, 100e3]))
    assert not result.thrashing.any()
    g1p2 = result.members.index("G1P2")
    counts = result.throughput[g1p2] * 300
    assert (np.abs(counts / np.array([3361, 3322, 3241, 3079]) - 1) < 0.06).all()
    # the subchannel queue, not the locks, is what G1P2 waits for there
    assert result.breakdown["subchannel_wait"][g1p2, -1] > 5 * result.breakdown["lock_contention"][g1p2, -1]


def test_the_answer_at_a_saturated_subchannel_pool_is_a_fixed_point_of_the_solver() -> None:
    # started at the fixed point without contention; its parts add up to the response time
    result = solve_scenario(TWO_SUBCHANNELS, np.array([100e3]))
    parts = sum(result.breakdown[name] for name in result.breakdown)
    assert np.allclose(parts, result.response_time, rtol=1e-6)
