"""The band a planner's calibration writes is the fit's own joint normal, made as the study's files are
(trial 4 of issue 32, D3): its [band] points are the sigma points of the parameters the rows pin, with
their weights, so the band's parameter part has the fit's covariance (docs/background/cross-validation.md,
"The band"); no point lies past a bound, nor past the printed 95% interval with up to 3 parameters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qmodel.scenario.band import load_banded
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.fit import Fit, current_value, free_parameters, model_values, write_fit
from qmodel.scenario.measurements import Measurement
from qmodel.scenario.spec import load_scenario

ENV2 = load_scenario("gdps-env2")


def a_fit(keys: list[str], seed: int, spread: float = 1e-4) -> Fit:
    """A fit of ``keys`` on Environment 2's responses at 0 to 70 km: each value in the middle of its
    range (lock_span 50%), a covariance from a random Jacobian of 8 rows, ``spread`` its scale."""
    parameters = free_parameters(ENV2, keys)
    rows = tuple(
        Measurement("mine", m, km * 1e3, "response_time", 1.0)
        for km in (0, 20, 40, 70)
        for m in ("G1P1", "G1P2")
    )
    x = np.array([p.to_scale(ENV2.lock_span if p.key.startswith("locks") else 0.04) for p in parameters])
    jacobian = np.random.default_rng(seed).normal(size=(len(rows), len(parameters)))
    covariance = np.linalg.inv(jacobian.T @ jacobian) * spread
    return Fit(parameters, x, covariance, rows, model_values(ENV2, rows), np.zeros(len(rows)), jacobian, ENV2)


def banded_values(fit: Fit, folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """The band's parameter points (the answer itself first), as the next ``qmodel scenario`` reads them
    from the fit file calibrate writes, on the fitted scales, and their weights."""
    path = folder / "mine.toml"
    path.write_text(resolve_scenario("gdps-env2").read_text(encoding="utf-8"), encoding="utf-8")
    write_fit(fit, path, "measured.csv")
    banded = load_banded(path)
    values = [
        [p.to_scale(current_value(s, p)) for p in fit.parameters] for s in (banded.scenario, *banded.points)
    ]
    return np.array(values), banded.all_weights()


@pytest.mark.parametrize(
    ("keys", "seed"),
    [
        (["member.*.other"], 0),
        (["member.*.other", "locks.lock_span"], 1),
        (["member.*.other", "locks.lock_span"], 2),
    ],
)
def test_the_band_calibrate_writes_has_the_fits_mean_and_covariance(tmp_path: Path, keys, seed: int) -> None:
    fit = a_fit(keys, seed)
    values, weights = banded_values(fit, tmp_path)
    assert (weights >= 0).all() and weights.sum() == pytest.approx(1)
    mean = weights @ values
    np.testing.assert_allclose(mean, fit.x, rtol=1e-5, atol=1e-8)
    covariance = (weights[:, None] * (values - mean)).T @ (values - mean)
    np.testing.assert_allclose(
        covariance, fit.covariance, rtol=1e-3, atol=1e-4 * np.abs(fit.covariance).max()
    )


@pytest.mark.parametrize("seed", range(3))
def test_no_band_point_lies_past_a_bound_or_the_printed_interval(tmp_path: Path, seed: int) -> None:
    # trial 4: a point at lock_span 12.06% beside a printed 95% interval of 16.13% to 100%
    fit = a_fit(["member.*.other", "locks.lock_span"], seed, spread=0.02)  # lock_span's σ near 10 points
    intervals = fit.intervals()
    for point, _ in fit.band_points():
        for p in fit.parameters:
            low, high = intervals[p.key]
            assert p.low <= point[p.key] <= p.high
            assert low - 1e-12 <= point[p.key] <= high + 1e-12
