"""Fitting a measured table against distance: the per-km slope and each row's residual.

The studies print service times (DISC, Q+PEND, CF async service) at 0, 20, 40,
70 and 100 km. Propagation predicts a straight line whose slope is
10 µs/km per round trip (light in fibre, 200,000 km/s). This module fits the
line by least squares, so that the slope can be compared with that prediction.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from qmodel.errors import InputError
from qmodel.units import UNITS


class DistanceFit(NamedTuple):
    """A least-squares line through (distance, value): slope in µs/km, intercept and residuals
    in the table's own unit, and the slope per round trip (µs/km)."""

    slope_us_per_km: float
    intercept: float
    residuals: np.ndarray
    us_per_km_per_round_trip: float


def fit_distance_table(
    distance_km: ArrayLike, values: ArrayLike, value_unit: str = "ms", round_trips: float = 1.0
) -> DistanceFit:
    """Least-squares fit value = intercept + slope × distance over the table's rows.

    ``values`` are as printed, in ``value_unit`` (ms or us); the slope is
    returned in µs/km, and divided by ``round_trips`` to compare with the
    10 µs/km per round trip that propagation predicts.
    """
    distance = np.asarray(distance_km, float)
    measured = np.asarray(values, float)
    if distance.shape != measured.shape or distance.ndim != 1 or len(distance) < 2:
        raise InputError(
            "values",
            f"{len(measured)} values for {len(distance)} distances",
            "one value per distance, at least two rows",
        )
    if value_unit not in ("ms", "us"):
        raise InputError("value_unit", value_unit, "ms or us")
    if round_trips <= 0:
        raise InputError("round_trips", round_trips, "> 0")
    slope, intercept = np.polyfit(distance, measured, 1)
    slope_us_per_km = slope * UNITS[value_unit].to_si / UNITS["us"].to_si
    return DistanceFit(
        float(slope_us_per_km),
        float(intercept),
        measured - (intercept + slope * distance),
        float(slope_us_per_km / round_trips),
    )


def distance_slope(distance: ArrayLike, values: ArrayLike, round_trips: float = 1.0) -> dict[str, float]:
    """Registry form of :func:`fit_distance_table`, SI in and out: distance in m, values in s.

    Outputs: ``slope`` and ``slope_per_round_trip`` in s/m (10 µs/km = 1e-8 s/m per
    round trip is what propagation predicts), ``intercept`` in s.
    """
    fit = fit_distance_table(
        np.asarray(distance, float) / UNITS["km"].to_si,
        np.asarray(values, float) / UNITS["ms"].to_si,
        "ms",
        round_trips,
    )
    per_km = UNITS["us/km"].to_si
    return {
        "slope": fit.slope_us_per_km * per_km,
        "slope_per_round_trip": fit.us_per_km_per_round_trip * per_km,
        "intercept": fit.intercept * UNITS["ms"].to_si,
    }
