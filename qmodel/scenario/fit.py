"""Weighted least squares of a scenario's free parameters over measured rows: values, intervals, residuals
and which parameters the rows do not pin.

The one fit of qmodel's scenarios: ``qmodel scenario calibrate FILE MEASUREMENTS`` calls it on a planner's
rows, the GDPS study's calibration (:mod:`qmodel.scenario.calibrate`) on the study's, and a
cross-validation on any subset of them. A free parameter is a dotted scenario key
(``locks.lockable_items``, ``member.G1P1.other``, ``member.*.think_time`` for each member's own,
``crossing_latency``), as a --variants header or a [band] point names it.

Method: the weighted residual of each row (:func:`qmodel.scenario.measurements.weighted_residual`:
(model − measured) / (σ × measured), σ by quantity, times √weight) is minimised over all rows by
scipy's trust-region reflective least_squares within each parameter's bounds; a positive scale
parameter (a count of lockable items, a gamma shape) on a log scale. The covariance of the fitted
scale is s² (JᵀJ)⁻¹, J the Jacobian of the weighted residuals at the optimum, s² = RSS / (n − p); the
interval of each parameter ± t(0.975, n − p) standard errors on its fitted scale.

Weakly identified (the criterion, written before any result): a parameter whose rows do not pin it,
that is (a) fewer rows than parameters, or (b) no row moves with it (its Jacobian column below 1e-6 of
the largest), or (c) its 95% interval spans more than a factor of 2 (a log-scale parameter) or more
than its own value either way (a linear one), or (d) it is more than 0.99 correlated with another
parameter (the rows pin a combination, not each).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

import numpy as np
from scipy.optimize import least_squares
from scipy.stats import t

from qmodel.errors import ConvergenceError, InputError
from qmodel.scenario.compose import solve_at
from qmodel.scenario.measurements import Measurement, result_value, weighted_residual
from qmodel.scenario.overrides import with_overrides, with_values
from qmodel.scenario.spec import Member, Scenario

WEAK_FACTOR = 2.0  # a log-scale parameter whose 95% interval spans more than this factor: weakly identified
WEAK_CORRELATION = 0.99
LEVEL = 0.95
_FLAT = 1e-6  # a Jacobian column below this share of the largest: no row moves with the parameter
# Each free key's bounds (SI) and scale: a positive scale parameter on a log scale
_BOUNDS: dict[str, tuple[float, float, bool]] = {
    "locks.lockable_items": (1.0, 1e9, True),
    "locks.lock_span": (0.0, 1.0, False),
    "locks.resolution_round_trips": (0.0, 1e3, False),
    "conversion.redispatch": (0.0, 0.1, False),
    "conversion.threshold": (1e-6, 0.1, False),
    "conversion.async_cpu": (0.0, 0.1, False),
    "crossing_latency": (0.0, 0.1, False),
    "fibre_speed": (1e7, 299_792_458.0, False),
    "distribution.shape": (1e-3, 1e3, True),
    "disk.castout_iosq": (0.0, 100.0, False),
    "member.other": (0.0, 100.0, False),
    "member.think_time": (1e-6, 1e6, False),
    "member.cpu": (0.0, 100.0, False),
    "member.shape": (1e-3, 1e3, True),
}
FREE_KEYS = tuple(_BOUNDS)  # the keys a file may declare free (member.KEY as member.NAME.KEY or member.*.KEY)


@dataclass(frozen=True)
class FreeParameter:
    """A fitted scenario key: ``key`` dotted (``member.G1P1.other``), ``low`` and ``high`` its bounds in
    SI, ``log`` whether it is fitted on a log scale."""

    key: str
    low: float
    high: float
    log: bool

    def to_scale(self, value: float) -> float:
        """The value (SI) on the scale it is fitted on."""
        return float(np.log(value)) if self.log else float(value)

    def from_scale(self, x: float) -> float:
        """The value (SI) of ``x`` on the fitted scale."""
        return float(np.exp(x)) if self.log else float(x)


def free_parameters(scenario: Scenario, keys: Sequence[str]) -> tuple[FreeParameter, ...]:
    """The fitted parameters ``keys`` name: ``member.*.KEY`` is one parameter per member (each its own
    value). InputError for a key that is not one of :data:`FREE_KEYS` or names no member."""
    names = [m.name for m in scenario.members]
    free = []
    for key in keys:
        parts = key.split(".")
        if parts[0] == "member" and len(parts) == 3:
            kind = f"member.{parts[2]}"
            members = names if parts[1] == "*" else [parts[1]]
            if parts[1] != "*" and parts[1] not in names:
                raise InputError("free parameter", key, "member.NAME.KEY, NAME one of " + ", ".join(names))
        else:
            kind, members = key, [""]
        if kind not in _BOUNDS:
            raise InputError("free parameter", key, "one of " + ", ".join(
                k.replace("member.", "member.NAME.") for k in FREE_KEYS))
        low, high, log = _BOUNDS[kind]
        free += [FreeParameter(f"member.{m}.{parts[2]}" if m else key, low, high, log) for m in members]
    keys_given = [p.key for p in free]
    twice = next((k for k in keys_given if keys_given.count(k) > 1), None)
    if twice:
        raise InputError("free parameter", twice, "each parameter once", reason="named twice")
    return tuple(free)


def current_value(scenario: Scenario, parameter: FreeParameter) -> float:
    """The scenario's own value (SI) of a free parameter: where a fit starts."""
    parts = parameter.key.split(".")
    if parts[0] == "member":
        member: Member = scenario.member(parts[1])
        value = getattr(member, parts[2])
        return float(scenario.shape if value is None else value)  # a member's shape: [distribution]'s
    field = {"distribution.shape": "shape"}.get(parameter.key, parts[-1])
    assert field in {f.name for f in fields(Scenario)}
    return float(getattr(scenario, field))


def model_values(scenario: Scenario, rows: Sequence[Measurement]) -> np.ndarray:
    """The model's value (SI) of each row, NaN where the scenario has no answer (thrashing): one solve
    per run (subchannels, Metro Mirror, castout owner) over the distances of its rows."""
    values = np.full(len(rows), np.nan)
    for run in sorted({row.run for row in rows}):
        picked = [i for i, row in enumerate(rows) if row.run == run]
        distances = sorted({rows[i].distance for i in picked})
        result = solve_at(with_overrides(scenario, *run), np.array(distances))
        for i in picked:
            row = rows[i]
            values[i] = result_value(result, distances.index(row.distance), row.member, row.quantity,
                                     row.interval)
    return values


@dataclass(frozen=True)
class Fit:
    """A fit's result (:func:`fit_scenario`): the ``parameters``, their values ``x`` and ``covariance``
    on the fitted scale, each row's model value (SI, NaN: no answer) and weighted residual, the
    degrees of freedom n − p, and the scenario at the fit."""

    parameters: tuple[FreeParameter, ...]
    x: np.ndarray
    covariance: np.ndarray
    rows: tuple[Measurement, ...]
    model: np.ndarray
    residuals: np.ndarray
    jacobian: np.ndarray
    scenario: Scenario

    @property
    def dof(self) -> int:
        """Fitted rows (weight above 0) less parameters."""
        return int(sum(row.weight > 0 for row in self.rows)) - len(self.parameters)

    @property
    def values(self) -> dict[str, float]:
        """Each parameter's fitted value, SI, by key."""
        return {p.key: p.from_scale(x) for p, x in zip(self.parameters, self.x, strict=True)}

    def standard_errors(self) -> np.ndarray:
        """On the fitted scale."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def intervals(self, level: float = LEVEL) -> dict[str, tuple[float, float]]:
        """Each parameter's ``level`` interval (SI): ± t(n − p) standard errors on its fitted scale,
        clipped to its bounds; the whole bounds where n − p < 1."""
        quantile = float(t.ppf((1 + level) / 2, self.dof)) if self.dof >= 1 else np.inf
        ends = {}
        for p, x, se in zip(self.parameters, self.x, self.standard_errors(), strict=True):
            low, high = (np.clip(x + sign * quantile * se, p.to_scale(p.low), p.to_scale(p.high))
                         for sign in (-1, 1))
            ends[p.key] = (p.from_scale(low), p.from_scale(high))
        return ends

    def correlation(self) -> np.ndarray:
        """The parameters' correlation matrix (NaN where a variance is 0)."""
        se = self.standard_errors()
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.covariance / np.outer(se, se)

    def weak(self) -> dict[str, str]:
        """Why each weakly identified parameter is so (the module's criterion), by key; "" if pinned."""
        reasons = {p.key: "" for p in self.parameters}
        if self.dof < 1:
            return {key: f"{len(self.parameters)} parameters on {self.dof + len(self.parameters)} fitted rows"
                    for key in reasons}
        columns = np.abs(self.jacobian).max(axis=0) if self.jacobian.size else np.zeros(len(reasons))
        largest = columns.max(initial=0.0)
        correlation = self.correlation()
        for i, (p, (low, high)) in enumerate(zip(self.parameters, self.intervals().values(), strict=True)):
            value = p.from_scale(self.x[i])
            partner = [self.parameters[j].key for j in range(len(self.parameters))
                       if j != i and abs(correlation[i, j]) > WEAK_CORRELATION]
            if not columns[i] > _FLAT * largest:
                reasons[p.key] = "no row moves with it"
            elif p.log and not (low > 0 and high / low <= WEAK_FACTOR):
                reasons[p.key] = f"its {LEVEL:.0%} interval spans more than a factor of {WEAK_FACTOR:g}"
            elif not p.log and not (high - value <= abs(value) and value - low <= abs(value)):
                reasons[p.key] = f"its {LEVEL:.0%} interval is wider than its value either way"
            elif partner:
                reasons[p.key] = f"correlated above {WEAK_CORRELATION:g} with {', '.join(partner)}"
        return reasons


def fit_scenario(scenario: Scenario, rows: Sequence[Measurement], free: Sequence[str | FreeParameter], *,
                 prepare: Callable[[Scenario], Scenario] | None = None,
                 start: dict[str, float] | None = None) -> Fit:
    """Fit the ``free`` parameters of ``scenario`` by weighted least squares over every row of ``rows``
    (the module docstring: method, interval, weak flag).

    :param scenario: the scenario; its values of the free parameters are where the fit starts.
    :param rows: the measured rows (a row of weight 0 is shown with its residual, not fitted).
    :param free: dotted keys (``member.*.other`` for each member's) or :class:`FreeParameter`.
    :param prepare: applied to the scenario at every trial before it is solved (the study's exact 0 km
        fits of each member's other and think time, :mod:`qmodel.scenario.calibrate`); an InputError or
        ConvergenceError there counts as every row 100% off.
    :param start: start values (SI) by key, in place of the scenario's.
    :returns: :class:`Fit`.
    """
    parameters: tuple[FreeParameter, ...] = ()
    for given in free:
        parameters += (given,) if isinstance(given, FreeParameter) else free_parameters(scenario, [given])
    rows = tuple(rows)
    if not rows:
        raise InputError("measurements", "no rows", "at least one measured row")
    if not parameters:
        raise InputError("free parameters", "none", "at least one free parameter to fit")
    starts = {p.key: (start or {}).get(p.key, current_value(scenario, p)) for p in parameters}
    low = np.array([p.to_scale(p.low) for p in parameters])  # a log-scale parameter's low end is above 0
    high = np.array([p.to_scale(p.high) for p in parameters])
    x0 = np.clip([p.to_scale(min(max(starts[p.key], p.low), p.high)) for p in parameters], low, high)
    fitted = np.array([row.weight > 0 for row in rows])

    def trial(x: np.ndarray) -> Scenario | None:
        varied = with_values(scenario, {p.key: p.from_scale(v) for p, v in zip(parameters, x, strict=True)})
        if prepare is None:
            return varied
        try:
            return prepare(varied)
        except (InputError, ConvergenceError):  # the prepared rows cannot take these values
            return None

    def residuals(x: np.ndarray) -> np.ndarray:
        at = trial(x)
        model = np.full(len(rows), np.nan) if at is None else model_values(at, rows)
        return _weighted(rows, model)[fitted]

    solution = least_squares(residuals, x0, bounds=(low, high), x_scale=np.ones_like(x0), diff_step=1e-4)
    jacobian = np.asarray(solution.jac)
    dof = int(fitted.sum()) - len(parameters)
    variance = 2 * solution.cost / dof if dof >= 1 else 1.0
    covariance = variance * np.linalg.pinv(jacobian.T @ jacobian)
    at = trial(solution.x)
    if at is None:
        raise InputError("calibration", {p.key: p.from_scale(v) for p, v in zip(parameters, solution.x,
                                                                                  strict=True)},
                         "values the prepared rows can take", reason="the fit ended where they cannot be met")
    model = model_values(at, rows)
    weighted = _weighted(rows, model)
    return Fit(parameters, np.asarray(solution.x), covariance, rows, model, weighted, jacobian, at)


def _weighted(rows: Sequence[Measurement], model: np.ndarray) -> np.ndarray:
    return np.array([weighted_residual(row, value) for row, value in zip(rows, model, strict=True)])
