"""Leave one environment out: each GDPS environment predicted from parameters fitted on the other two.

The criterion, the folds and the band are written down in docs/background/cross-validation.md (before
any result of them was seen); this module carries them out. For each environment E (a fold):

1. the shared parameters are fitted on the other two environments' rows: the lock parameters by weighted
   least squares over their end-to-end response and transaction rows above 0 km (:func:`fit_fold`), the
   round trip per km on their RMF service times (:data:`ROUND_TRIP_SERIES`);
2. E is calibrated on its own measurements at its measured distance, as a planner's file would be
   (:func:`qmodel.scenario.calibrate.prepared`: each member's other, think time and CPU at 0 km; its
   gamma shapes on its 0 km percentiles);
3. E's left-out rows (:func:`left_out_rows`) are predicted, each with its band at the level: the fold's
   parameters by their sigma points, times the model's own error sized on the other folds' rows only
   (:func:`error_model`).

A candidate (:data:`CANDIDATES`: the lock law and span, the percentile law, the conversion threshold) is
scored by the mean over the environments of each one's RMS relative error over its left-out response rows
(:func:`score`). ``python -m qmodel.validation.crossval`` prints the rows and the figures; ``--compare``
the candidates' comparison; ``--write`` writes the model's error (:data:`ERROR_FILE`) and the docs' tables.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import least_squares, minimize

from qmodel.catalogue.registry import model_function, si_inputs
from qmodel.errors import ConvergenceError, InputError
from qmodel.scenario import calibrate
from qmodel.scenario.cases import with_overrides
from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.modelerror import MODEL_FILE
from qmodel.scenario.predictive import LEVEL, ModelError, ends, quantiles, samples, share_within, sigma_points
from qmodel.scenario.result import ScenarioResult
from qmodel.scenario.spec import Scenario, load_scenario
from qmodel.units import UNITS
from qmodel.validation import quantities  # noqa: F401  (registers the scenario quantity)
from qmodel.validation.by_kind import E2E_CASEBOOK, KINDS
from qmodel.validation.casebook import Case, load_casebook, shipped_casebooks

ENVIRONMENTS = ("gdps-env1", "gdps-env2", "gdps-env3")
# the kind of the model's own error each kind of row carries (a percentile follows the response time's)
ERROR_OF = {"response": "response_time", "count": "throughput", "CPU": "throughput"}
# the error's kind each ScenarioResult record value carries
WITHIN = 0.10  # the target's tolerance on a response row

# Each environment's RMF service times of requests that cross the distance once per request, as printed
# at ROUND_TRIP_KM (us), each series read from its table and row of gdps-pprc-100km-2006.toml: the fold's
# round trip per km is fitted on the training environments' series.
ROUND_TRIP_SERIES: dict[str, dict[str, tuple[str, str]]] = {
    # Environment 1, DBxMSTR table (both members merged): DISC, the Metro Mirror write's round trip
    "gdps-env1": {"DBxMSTR DISC": ("env1-mstr", "DISC")},
    # Environment 2, G1P1 MSTR and G1P2 MSTR tables (DISC), GBP8 Secondary table (G1P1 a, G1P2 a: async
    # writes from site 1 to CF2)
    "gdps-env2": {
        "G1P1 MSTR DISC": ("env2-mstr", "G1P1 DISC"),
        "G1P2 MSTR DISC": ("env2-mstr", "G1P2 DISC"),
        "G1P1 GBP8 secondary async service": ("env2-gbp8-sec", "G1P1 a rt"),
        "G1P2 GBP8 secondary async service": ("env2-gbp8-sec", "G1P2 a rt"),
    },
    "gdps-env3": calibrate.ROUND_TRIP_SERIES,
}


@dataclass(frozen=True)
class Candidate:
    """A model choice: the lock parameters it fits (from ``start``), the scenario values it declares
    (``declared``: lock_span, threshold), and its percentile law (``exponential``: shape 1 for every
    member instead of each member's shape fitted at 0 km)."""

    name: str
    choice: str
    fitted: tuple[str, ...] = ("lockable_items",)
    start: tuple[float, ...] = (5000.0,)
    declared: dict[str, float] = field(default_factory=lambda: {"lock_span": 1.0})
    exponential: bool = False

    @property
    def parameters(self) -> int:
        """How many parameters it fits: its lock parameters, and each member's gamma shape of the
        environments that print a percentile (none for the exponential law)."""
        return len(self.fitted) + (0 if self.exponential else SHAPE_PARAMETERS)


SHAPE_PARAMETERS = 4  # the members' gamma shapes: two members in each of Environments 1 and 2
TIE = 0.01  # scores within this of the lowest are a tie (1 point of relative error, or of a percentile)
# The candidates in the order docs/background/cross-validation.md declares them. The choices are made in
# that order, each on top of the ones before it chosen: the percentile law and the threshold with the
# lock law and span the criterion chose.
SPAN_100 = Candidate("Tay + commit, span 100% declared (shipped before this comparison)", "lock law and span")
SHIPPED = Candidate(
    "Tay + commit, span 50% declared", "lock law and span", start=(2000.0,), declared={"lock_span": 0.5}
)
CANDIDATES = (
    SPAN_100,
    SHIPPED,
    Candidate(
        "Tay + commit, span 25% declared", "lock law and span", start=(900.0,), declared={"lock_span": 0.25}
    ),
    Candidate(
        "Tay + commit, span 0 declared (the commit alone)",
        "lock law and span",
        start=(300.0,),
        declared={"lock_span": 0.0},
    ),
    Candidate(
        "Tay + commit, span fitted",
        "lock law and span",
        fitted=("lockable_items", "lock_span"),
        start=(2000.0, 0.5),
        declared={},
    ),
    Candidate(
        "exponential (shape 1) + propagation shift, span 50%",
        "percentile law",
        start=(2000.0,),
        declared={"lock_span": 0.5},
        exponential=True,
    ),
    Candidate(
        "conversion threshold 100 us, span 50%",
        "conversion threshold",
        start=(2000.0,),
        declared={"lock_span": 0.5, "threshold": 100e-6},
    ),
    Candidate(
        "conversion threshold 50 us, span 50%",
        "conversion threshold",
        start=(2000.0,),
        declared={"lock_span": 0.5, "threshold": 50e-6},
    ),
)


@dataclass(frozen=True)
class Row:
    """One end-to-end row of the casebook as the folds see it: the run (distance m, Metro Mirror,
    subchannels, castout owner: "" as the file says) and the printed value in the case's unit."""

    case: Case
    environment: str
    member: str
    distance: float
    kind: str
    quantity: str
    subchannels: int
    mirror: str
    owner: str
    interval: float

    @property
    def printed(self) -> float:
        paper = self.case.paper
        assert paper is not None, "a row with a printed value"
        return paper[0]

    @property
    def to_si(self) -> float:
        """One of the case's unit in SI (a count is a throughput × the interval)."""
        scale = UNITS[self.case.unit].to_si
        return scale / self.interval if self.quantity == "transactions" else scale

    @property
    def run(self) -> tuple[int, str, str]:
        return self.subchannels, self.mirror, self.owner


def casebook_rows(casebook: str = E2E_CASEBOOK) -> list[Row]:
    """Every end-to-end row of the four kinds (response, percentile, count, CPU) with a printed value."""
    rows = []
    entry = model_function("scenario")
    for case in load_casebook(shipped_casebooks()[casebook]):
        output = case.quantity.partition(".")[2]
        if (
            output not in KINDS
            or case.fitted
            or case.inconsistent
            or case.inputs.get("scenario") not in ENVIRONMENTS
        ):
            continue
        si = si_inputs(entry, case.inputs, f"{case.casebook}: case {case.id!r}")
        rows.append(
            Row(
                case,
                si["scenario"],
                si["member"],
                float(si["distance"]),
                KINDS[output],
                output,
                int(si["subchannels"]),
                si["metro_mirror"],
                si["castout_owner"],
                float(si["interval"]),
            )
        )
    return rows


def _lock_fit_row(row: Row) -> bool:
    """A row a lock fit rests on: a response or count above 0 km with Metro Mirror on."""
    return row.kind in ("response", "count") and row.distance > 0 and row.mirror != "off"


def left_out_rows(rows: list[Row], environment: str) -> list[Row]:
    """The environment's rows a fold predicts: not calibrated on the environment's own measurements (a
    row calibrated only because a lock fit rests on it, the shipped fit's Environment 3 rows, is left out
    here: no fold fits on its own environment), and never a replay."""
    return [
        row
        for row in rows
        if row.environment == environment and (not row.case.calibrated or _lock_fit_row(row))
    ]


def training_rows(rows: list[Row], environments: Iterable[str]) -> tuple[calibrate.Row, ...]:
    """The lock fit's rows of ``environments``: their responses (ms) and counts above 0 km, as printed."""
    picked = []
    for row in rows:
        if row.environment in environments and _lock_fit_row(row):
            value = row.printed * UNITS[row.case.unit].to_si * 1e3 if row.kind == "response" else row.printed
            picked.append(
                calibrate.Row(
                    row.environment,
                    row.member,
                    row.distance / 1e3,
                    "response" if row.kind == "response" else "transactions",
                    value,
                    row.subchannels,
                    row.owner,
                )
            )
    return tuple(picked)


def round_trip(environments: Iterable[str]) -> calibrate.RoundTripFit:
    """The round trip per km fitted on the service-time series of ``environments``."""
    return calibrate.fit_round_trip(
        {
            f"{name} {series}": values
            for name in environments
            for series, values in calibrate.round_trip_rows(ROUND_TRIP_SERIES[name]).items()
        }
    )


def _scale(name: str, value: float) -> float:
    return float(np.log(value)) if name in calibrate._LOG_SCALE else float(value)


def _unscale(name: str, value: float) -> float:
    bounds = calibrate.LOCK_PARAMETERS[name]
    value = float(np.clip(value, *bounds))
    return float(np.exp(value)) if name in calibrate._LOG_SCALE else value


def base_scenario(name: str, candidate: Candidate, fibre_speed: float, locks: dict[str, float]) -> Scenario:
    """Environment ``name``'s shipped file with the fold's round trip, the candidate's declared values
    and the lock values, before its own calibration."""
    values: dict[str, Any] = {"fibre_speed": fibre_speed, **candidate.declared, **locks}
    return replace(load_scenario(name), **values)


def calibrated(name: str, candidate: Candidate, fibre_speed: float, locks: dict[str, float]) -> Scenario:
    """Environment ``name`` calibrated on its own 0 km rows at the lock values: CPU per transaction
    (Environment 3's 0 km APPL%, carried to the others), each member's other and think time, and its
    gamma shapes (or shape 1 for the exponential law)."""
    cpu = (
        calibrate.prepared("gdps-env3", base_scenario("gdps-env3", candidate, fibre_speed, locks))
        .members[0]
        .cpu
    )
    scenario = calibrate.prepared(name, base_scenario(name, candidate, fibre_speed, locks), cpu)
    if candidate.exponential:
        return replace(scenario, shape=1.0, members=tuple(replace(m, shape=None) for m in scenario.members))
    return calibrate.fit_shapes(name, scenario)


@dataclass(frozen=True)
class FoldFit:
    """A fold's fit: the lock values ``x`` (on their fitted scales) of ``names``, their covariance, and the
    round trip per km, fitted on the ``training`` environments."""

    candidate: Candidate
    held_out: str
    training: tuple[str, ...]
    names: tuple[str, ...]
    x: np.ndarray
    covariance: np.ndarray
    fibre_speed: float
    rms: float  # the fit's weighted RMS residual

    def locks(self, x: np.ndarray | None = None) -> dict[str, float]:
        x = self.x if x is None else x
        return {name: _unscale(name, v) for name, v in zip(self.names, x, strict=True)}

    def sigma_points(self) -> list[tuple[dict[str, float], float]]:
        """The fit's sigma points as lock values, with their weights (:func:`sigma_points`)."""
        return [(self.locks(x), weight) for x, weight in sigma_points(self.x, self.covariance)]


def fit_fold(candidate: Candidate, held_out: str, rows: list[Row]) -> FoldFit:
    """The candidate's lock parameters fitted on every environment but ``held_out`` (weighted least
    squares over :func:`training_rows`, each environment calibrated on its own 0 km rows at every trial;
    σ 10% of a response, 3% of a count; a row without an answer 100% off)."""
    training = tuple(name for name in ENVIRONMENTS if name != held_out)
    fit_rows = training_rows(rows, training)
    fibre_speed = round_trip(training).fibre_speed
    names = candidate.fitted
    x0 = np.array([_scale(n, v) for n, v in zip(names, candidate.start, strict=True)])
    low, high = np.array([calibrate.LOCK_PARAMETERS[n] for n in names]).T

    def residuals(x: np.ndarray) -> np.ndarray:
        locks = {name: _unscale(name, v) for name, v in zip(names, x, strict=True)}
        found = []
        for name in training:
            picked = tuple(row for row in fit_rows if row.scenario == name)
            try:
                scenario = calibrated(name, candidate, fibre_speed, locks)
            except (InputError, ConvergenceError):  # the 0 km rows cannot take these values
                found.append(np.full(len(picked), 1 / calibrate.SIGMA["response"]))
                continue
            found.append(calibrate.weighted_residuals(picked, calibrate.model_values(scenario, picked)))
        return np.concatenate(found)

    solution = least_squares(residuals, x0, bounds=(low, high), x_scale=np.ones_like(x0), diff_step=1e-4)
    dof = max(len(fit_rows) - len(x0), 1)
    covariance = 2 * solution.cost / dof * np.linalg.pinv(solution.jac.T @ solution.jac)
    return FoldFit(
        candidate,
        held_out,
        training,
        names,
        solution.x,
        covariance,
        fibre_speed,
        float(np.sqrt(np.mean(solution.fun**2))),
    )


@dataclass(frozen=True)
class Means:
    """Each member's mean response time, its predicted part, fixed part and throughput (S, M), SI, at
    each parameter point, with the members' names and gamma shapes (M,): what a percentile row's band
    is computed from."""

    response: np.ndarray
    predicted: np.ndarray
    fixed: np.ndarray
    throughput: np.ndarray
    shapes: np.ndarray
    members: tuple[str, ...]


@dataclass(frozen=True)
class Solved:
    """A left-out row's model answers at each parameter point (S points): its value ``value`` (S,) and
    its predicted part ``predicted`` (S,), SI; a percentile row's members' means (``means``)."""

    value: np.ndarray
    predicted: np.ndarray
    means: Means | None = None


def _value(result: ScenarioResult, row: Row, d: int) -> float:
    """The row's quantity from a solve at distance index ``d``, SI (a count as a throughput)."""
    if row.member == "all":
        values = {
            "response_time": result.total_response_time[d],
            "transactions": result.total_throughput[d],
            "share_within_goal": result.total_share_within_goal[d],
            "cpu_of_one_cp": np.nan,
        }
        return float(values[row.quantity])
    m = result.members.index(row.member)
    values = {
        "response_time": result.response_time[m, d],
        "transactions": result.throughput[m, d],
        "share_within_goal": result.share_within_goal[m, d],
        "cpu_of_one_cp": result.throughput[m, d] * result.cpu_per_transaction[m, d],
    }
    return float(values[row.quantity])


def solve_rows(scenario: Scenario, rows: list[Row]) -> list[tuple[ScenarioResult, int, ScenarioResult]]:
    """Per row: the solve of its run (with its distance's index) and the solve at the scenario's measured
    configuration (0 km, as the file says): the predicted part is the difference."""
    base = solve_scenario(scenario, np.array([0.0]))
    solved = {}
    for run in {row.run for row in rows}:
        distances = np.array(sorted({row.distance for row in rows if row.run == run}))
        solved[run] = (solve_scenario(with_overrides(scenario, *run), distances), list(distances))
    return [(solved[row.run][0], solved[row.run][1].index(row.distance), base) for row in rows]


def predict(fit: FoldFit, rows: list[Row]) -> list[Solved]:
    """The held-out environment's ``rows`` at each sigma point of the fold's fit (its own 0 km fits
    redone at each). Where the environment's own 0 km rows cannot be met at a point (the candidate
    explains more than was measured there), that point has no answer: NaN for every row."""
    names = tuple(m.name for m in load_scenario(fit.held_out).members)
    members = len(names)
    per_point: list[tuple[list[tuple[ScenarioResult, int, ScenarioResult]], np.ndarray] | None] = []
    for locks, _ in fit.sigma_points():
        try:
            scenario = calibrated(fit.held_out, fit.candidate, fit.fibre_speed, locks)
        except (InputError, ConvergenceError):
            per_point.append(None)
            continue
        per_point.append((solve_rows(scenario, rows), scenario.member_shapes))
    nothing = np.full(members, np.nan)
    found = []
    for i, row in enumerate(rows):
        value: list[float] = []
        predicted: list[float] = []
        response: list[np.ndarray] = []
        grown: list[np.ndarray] = []
        fixed: list[np.ndarray] = []
        throughput: list[np.ndarray] = []
        for point in per_point:
            if point is None:
                value.append(np.nan)
                predicted.append(np.nan)
                for each in (response, grown, fixed, throughput):
                    each.append(nothing)
                continue
            result, d, base = point[0][i]
            value.append(_value(result, row, d))
            predicted.append(value[-1] - _value(base, row, 0))
            response.append(result.response_time[:, d])
            grown.append(result.response_time[:, d] - base.response_time[:, 0])
            fixed.append(result.fixed_part[:, d])
            throughput.append(result.throughput[:, d])
        known = next((point for point in per_point if point is not None), None)
        means = (
            None
            if row.kind != "percentile"
            else Means(
                np.array(response),
                np.array(grown),
                np.array(fixed),
                np.array(throughput),
                np.ones(members) if known is None else known[1],
                names if known is None else known[0][i][0].members,
            )
        )
        found.append(Solved(np.array(value), np.array(predicted), means))
    return found


@dataclass(frozen=True)
class Predicted:
    """A left-out row with the fold's answer (the fit's own point) and its band at ``level``, all in the
    case's unit; ``predicted`` the answer's predicted part (SI): the answer less the model's value at the
    environment's measured configuration (0 km as its file says)."""

    row: Row
    model: float
    predicted: float
    low: float
    high: float
    level: float
    goal_time: float = 0.0

    @property
    def measured(self) -> float:
        return self.row.printed

    @property
    def inside(self) -> bool:
        """The printed value lies in the band, ends included (an open end, NaN, holds any value)."""
        return not self.low > self.measured and not self.measured > self.high

    @property
    def deviation(self) -> float:
        """(model − printed) / printed; NaN where the model has no answer."""
        return self.model / self.measured - 1

    @property
    def half_width(self) -> float:
        """Half the band's width, relative to the model's value (a percentile: in points)."""
        half = (self.high - self.low) / 2
        return half if self.row.kind == "percentile" else half / self.model

    def record(self) -> dict[str, object]:
        """The row as ``cross-validate --format json`` lists it."""
        row = self.row
        return {
            "environment": row.environment,
            "member": row.member,
            "distance[km]": row.distance / 1e3,
            "kind": row.kind,
            "measured": self.measured,
            "model": _number(self.model),
            "predicted": _number(self.predicted / row.to_si),
            "low": _number(self.low),
            "high": _number(self.high),
            "level": self.level,
            "unit": row.case.unit,
            "case": row.case.id,
            "metro_mirror": row.mirror or "on",
            "subchannels": row.subchannels or None,
            "castout_owner": row.owner or None,
        }


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def band_of(
    row: Row,
    solved: Solved,
    weights: np.ndarray,
    error: ModelError,
    level: float,
    goal_time: float,
    goal_share: float,
) -> tuple[float, float]:
    """The row's band at ``level`` in SI: the weighted sample of the points and the model's error
    (:mod:`qmodel.scenario.predictive`); a percentile through each member's mean response time (the share
    at the band's ends of the mean, the members' shares weighted by their throughput: with one error for
    every member the shares move together)."""
    probabilities = ends(level)
    if row.kind != "percentile":
        kind = ERROR_OF[row.kind]
        values, w = samples(solved.value, error.sd(kind, solved.value, solved.predicted), weights)
        low, high = quantiles(values, w, probabilities, missing_high=row.kind == "response")
        return float(low), float(high)
    means = solved.means
    assert means is not None, "a percentile row is solved with its members' means"
    sds = error.sd("response_time", means.response, means.predicted)
    values, w = samples(means.response, sds, weights)
    long_end, short_end = quantiles(values, w, probabilities[::-1])  # the longer mean gives the lower share
    shares = [share_within(goal_time, mean, means.fixed[0], means.shapes) for mean in (short_end, long_end)]
    if row.member == "all":
        weight = means.throughput[0] / means.throughput[0].sum()
        return float(shares[1] @ weight), float(shares[0] @ weight)
    m = means.members.index(row.member)
    return float(shares[1][m]), float(shares[0][m])


def fit_error(rows: list[tuple[float, float, float]]) -> tuple[float, float]:
    """(σ, q) by maximum likelihood over ``rows`` of (residual, value, predicted part): each residual
    normal with variance (σ·value)² + (q·predicted)², fitted on log σ and log q (Nelder–Mead)."""
    r, y, g = (np.array(column, float) for column in zip(*rows, strict=True))

    def negative_log_likelihood(log: np.ndarray) -> float:
        variance = (np.exp(log[0]) * y) ** 2 + (np.exp(log[1]) * g) ** 2 + 1e-300
        return float(np.sum(np.log(variance) + r**2 / variance))

    found = minimize(
        negative_log_likelihood,
        np.log([0.02, 0.2]),
        method="Nelder-Mead",
        options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 4000},
    )
    return float(np.exp(found.x[0])), float(np.exp(found.x[1]))


def error_model(predictions: list[Predicted], environments: Iterable[str]) -> ModelError:
    """The model's own error sized on the left-out rows of ``environments`` (:func:`fit_error` per kind:
    the response rows for response times, the count rows for throughput and CPU)."""
    chosen = set(environments)
    spread, growth = {}, {}
    for kind, rows_of in (("response_time", "response"), ("throughput", "count")):
        picked = [
            (p.measured * p.row.to_si - p.model * p.row.to_si, p.model * p.row.to_si, p.predicted)
            for p in predictions
            if p.row.kind == rows_of and p.row.environment in chosen and not math.isnan(p.model)
        ]
        spread[kind], growth[kind] = fit_error(picked)
    names = ", ".join(sorted(chosen))
    return ModelError(spread, growth, f"fitted by maximum likelihood on the left-out rows of {names}")


@dataclass(frozen=True)
class CrossValidation:
    """A candidate cross-validated: each fold's fit, and every left-out row with its band."""

    candidate: Candidate
    fits: tuple[FoldFit, ...]
    predictions: tuple[Predicted, ...]
    level: float
    errors: dict[str, ModelError]  # by held-out environment: sized on the others' rows
    pooled: ModelError  # sized on every environment's left-out rows: the shipped answers' error

    def of(self, environment: str | None = None, kind: str | None = None) -> list[Predicted]:
        return [
            p
            for p in self.predictions
            if (environment in (None, p.row.environment)) and (kind in (None, p.row.kind))
        ]


def cross_validate(
    candidate: Candidate = SHIPPED, level: float = LEVEL, fits: dict[str, FoldFit] | None = None
) -> CrossValidation:
    """The candidate's three folds: each environment predicted from the other two, every left-out row
    with its band at ``level`` (the parameters' sigma points times the model's error sized on the other
    folds' rows). ``fits`` reuses folds already fitted (a percentile law does not change the lock fit)."""
    rows = casebook_rows()
    folds: list[FoldFit] = []
    solved: list[Solved] = []
    held: list[tuple[Row, FoldFit]] = []
    for environment in ENVIRONMENTS:
        known = (fits or {}).get(environment)
        if known is not None and (known.candidate.fitted, known.candidate.declared) == (
            candidate.fitted,
            candidate.declared,
        ):
            fit = replace(known, candidate=candidate)  # the same fit: only the percentile law differs
        else:
            fit = fit_fold(candidate, environment, rows)
        picked = left_out_rows(rows, environment)
        folds.append(fit)
        solved += predict(fit, picked)
        held += [(row, fit) for row in picked]
    goal = load_scenario("gdps-env1")
    nominal = [
        Predicted(row, s.value[0] / row.to_si, s.predicted[0], math.nan, math.nan, level)
        for (row, _), s in zip(held, solved, strict=True)
    ]
    errors = {name: error_model(nominal, (e for e in ENVIRONMENTS if e != name)) for name in ENVIRONMENTS}
    predictions = []
    for (row, fit), s, p in zip(held, solved, nominal, strict=True):
        weights = np.array([w for _, w in fit.sigma_points()])
        low, high = band_of(row, s, weights, errors[row.environment], level, goal.goal_time, goal.goal_share)
        predictions.append(replace(p, low=low / row.to_si, high=high / row.to_si))
    return CrossValidation(
        candidate, tuple(folds), tuple(predictions), level, errors, error_model(nominal, ENVIRONMENTS)
    )


def rms(values: Iterable[float]) -> float:
    """Root mean square (a NaN, a row without an answer, counts as 1: 100%)."""
    found = np.nan_to_num(np.array(list(values), float), nan=1.0)
    return float(np.sqrt(np.mean(found**2))) if found.size else math.nan


def errors_of(records: list[dict], environment: str, kind: str) -> list[float]:
    """The relative errors (model − printed) / printed of the listed rows of ``environment`` and ``kind``
    (a percentile's in points / 100; NaN where the model has no answer)."""
    return [
        math.nan
        if r["model"] is None
        else (r["model"] - r["measured"]) / (100 if kind == "percentile" else r["measured"])
        for r in rows_of(records, environment, kind)
    ]


def rows_of(records: list[dict], environment: str, kind: str) -> list[dict]:
    """The listed rows of ``environment`` and ``kind``."""
    return [r for r in records if r["environment"] == environment and r["kind"] == kind]


def score(records: list[dict], kind: str = "response") -> float:
    """The criterion, from the listed rows: the mean over the environments with rows of ``kind`` of each
    one's RMS error over them (relative; a percentile in points / 100; a row without an answer 100%)."""
    per = [rms(errors_of(records, name, kind)) for name in ENVIRONMENTS if errors_of(records, name, kind)]
    return float(np.mean(per)) if per else math.nan


def figures(records: list[dict]) -> dict[str, dict[str, Any]]:
    """The targets' figures recomputed from the rows as ``cross-validate --format json`` lists them: per
    environment and kind and over all, the rows, how many the model has within 10% (responses), how many
    the band covers, and the median half-width (relative to the model's value; a percentile in points)."""

    def summary(picked: list[dict]) -> dict[str, Any]:
        inside = [
            r
            for r in picked
            if not (r["low"] is not None and r["low"] > r["measured"])
            and not (r["high"] is not None and r["measured"] > r["high"])
        ]
        halves = [
            (r["high"] - r["low"]) / 2 / (1 if r["kind"] == "percentile" else r["model"])
            for r in picked
            if None not in (r["low"], r["high"], r["model"])
        ]
        within = [
            r for r in picked if r["model"] is not None and abs(r["model"] / r["measured"] - 1) <= WITHIN
        ]
        return {
            "rows": len(picked),
            "within_10pct": len(within),
            "covered": len(inside),
            "coverage": len(inside) / len(picked) if picked else None,
            "median_half_width": float(np.median(halves)) if halves else None,
        }

    table = {}
    for environment in (*ENVIRONMENTS, "all"):
        for kind in (*KINDS.values(), "all"):
            picked = [
                r for r in records if environment in ("all", r["environment"]) and kind in ("all", r["kind"])
            ]
            if picked:
                table[f"{environment} {kind}"] = summary(picked)
    return table


def targets(records: list[dict]) -> list[tuple[str, str, bool]]:
    """The issue's targets (what, the figure, met or not), computed from the rows alone."""
    found = figures(records)
    response, percentile, every = found["all response"], found.get("all percentile"), found["all all"]
    share = response["within_10pct"] / response["rows"]
    lines = [
        (
            "response predictions within 10% on at least 70% of rows",
            f"{response['within_10pct']} of {response['rows']} ({share:.1%})",
            share >= 0.70,
        ),
        (
            "the band covers 70-90% of the left-out rows",
            f"{every['covered']} of {every['rows']} ({every['coverage']:.1%})",
            0.70 <= every["coverage"] <= 0.90,
        ),
        (
            "median half-width at most 20% of the response",
            f"{response['median_half_width']:.1%}",
            response["median_half_width"] <= 0.20,
        ),
    ]
    if percentile:
        lines.append(
            (
                "median half-width at most 4 points of a percentile",
                f"{percentile['median_half_width']:.2f} points",
                percentile["median_half_width"] <= 4,
            )
        )
    return lines


ROWS_FILE = MODEL_FILE.with_name("cross-validation.json")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "background" / "cross-validation.md"


def studies_range(result: CrossValidation) -> dict[str, tuple[float, float]]:
    """The range the studies support for each fitted lock parameter: from the least to the greatest end
    of the folds' 95% intervals (±1.96 standard errors on the scale each is fitted on)."""
    found: dict[str, tuple[float, float]] = {}
    for fit in result.fits:
        for i, name in enumerate(fit.names):
            se = 1.96 * float(np.sqrt(fit.covariance[i, i]))
            low, high = _unscale(name, fit.x[i] - se), _unscale(name, fit.x[i] + se)
            key = f"locks.{name}"
            known = found.get(key, (low, high))
            found[key] = (min(known[0], low), max(known[1], high))
    return found


def model_toml(result: CrossValidation) -> str:
    """The model's own error and the studies' ranges as :data:`MODEL_FILE` holds them."""
    lines = [
        "# Written by qmodel scenario cross-validate --write (docs/background/cross-validation.md): the",
        "# model's own error by kind, a value y with predicted part g erring by sqrt((spread*y)^2 +",
        "# (growth*g)^2), and the range the studies support for each lock parameter. Do not edit.",
        f'method = "maximum likelihood over the left-out rows of the three GDPS environments, each '
        f'predicted from the other two ({result.candidate.name})"',
        "",
    ]
    for kind in result.pooled.spread:
        rows = sum(1 for p in result.predictions if ERROR_OF.get(p.row.kind) == kind and p.row.kind != "CPU")
        lines += [
            f"[error.{kind}]  # {rows} rows",
            f"spread = {result.pooled.spread[kind]:.6g}",
            f"growth = {result.pooled.growth[kind]:.6g}",
            "",
        ]
    lines.append("[studies_range]")
    lines += [f'"{key}" = [{low:.6g}, {high:.6g}]' for key, (low, high) in studies_range(result).items()]
    return "\n".join(lines) + "\n"


def rows_table(result: CrossValidation) -> str:
    """Markdown: the figures per environment and kind, recomputed from the rows (:func:`figures`), and the
    targets met or not."""
    records = [p.record() for p in result.predictions]
    lines = [
        "| environment | kind | rows | within 10% | in the band | coverage | median half-width |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, f in figures(records).items():
        environment, kind = key.split(" ")
        half = f["median_half_width"]
        shown = "" if half is None else (f"{half:.2f} points" if kind == "percentile" else f"{half:.1%}")
        within = f["within_10pct"] if kind == "response" else ""
        lines.append(
            f"| {environment} | {kind} | {f['rows']} | {within} | {f['covered']} | "
            f"{f['coverage']:.1%} | {shown} |"
        )
    lines += ["", "| target | figure | met |", "|---|---|---|"]
    lines += [
        f"| {what} | {figure} | {'met' if met else 'not met'} |" for what, figure, met in targets(records)
    ]
    lines += [
        "",
        "| fold (left out) | lock parameters | round trip per km | fit RMS (weighted) |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {fit.held_out} | "
        + ", ".join(f"{k} {v:.4g}" for k, v in fit.locks().items())
        + f" | {2 / fit.fibre_speed * 1e9:.2f} us/km | {fit.rms:.2f} |"
        for fit in result.fits
    ]
    return "\n".join(lines) + "\n"


def own_errors(records: list[dict]) -> dict[str, dict[str, tuple[float, float]]]:
    """Each environment's own error, (σ, q) by maximum likelihood (:func:`fit_error`) over its own listed
    rows of each kind (response, count) alone: what an error sized on the other environments would have
    needed to be for it. Read from the rows as ``cross-validate --format json`` lists them."""
    found: dict[str, dict[str, tuple[float, float]]] = {}
    for environment in ENVIRONMENTS:
        for kind in ("response", "count"):
            rows = [
                (r["measured"] - r["model"], r["model"], r["predicted"])
                for r in rows_of(records, environment, kind)
                if r["model"] is not None
            ]
            if rows:
                found.setdefault(environment, {})[kind] = fit_error(rows)
    return found


def own_errors_table(records: list[dict]) -> str:
    """Markdown: :func:`own_errors`, σ and q of each environment and kind, and its rows' median |g/y|
    (how much of each value is predicted growth rather than what was measured at 0 km)."""
    lines = [
        "| environment | kind | σ (run to run) | q (of the growth) | median predicted part |",
        "|---|---|---|---|---|",
    ]
    for environment, kinds in own_errors(records).items():
        for kind, (sigma, q) in kinds.items():
            share = np.median(
                [abs(r["predicted"] / r["model"]) for r in rows_of(records, environment, kind) if r["model"]]
            )
            lines.append(f"| {environment} | {kind} | {sigma:.1%} | {q:.1%} | {share:.1%} |")
    return "\n".join(lines) + "\n"


def groups() -> dict[str, list[Candidate]]:
    """The candidates of each choice, in declared order: the lock law's among themselves, the others each
    beside the shipped candidate (the same law with the choice as shipped)."""
    found: dict[str, list[Candidate]] = {}
    for candidate in CANDIDATES:
        found.setdefault(candidate.choice, [] if candidate.choice == SHIPPED.choice else [SHIPPED])
        found[candidate.choice].append(candidate)
    return found


def choose(compared: list[tuple[Candidate, list[dict]]]) -> dict[str, Candidate]:
    """The criterion's choice for each choice: the lowest score (a percentile law's on its percentile
    rows, the others' on their response rows); those within TIE of it a tie, settled by fewer fitted
    parameters, then by the declared order."""
    records = {candidate.name: rows for candidate, rows in compared}
    chosen = {}
    for choice, candidates in groups().items():
        kind = "percentile" if choice == "percentile law" else "response"
        scored = [(score(records[c.name], kind), i, c) for i, c in enumerate(candidates) if c.name in records]
        if not scored:
            continue
        lowest = min(value for value, _, _ in scored)
        tied = [(c.parameters, i, c) for value, i, c in scored if value <= lowest + TIE]
        chosen[choice] = min(tied, key=lambda entry: entry[:2])[2]
    return chosen


def comparison_table(compared: list[tuple[Candidate, list[dict]]]) -> str:
    """Markdown: each candidate's score (the criterion, on its response rows; a percentile law's on its
    percentile rows too) and its RMS errors per environment and kind, from each one's listed rows."""
    chosen: dict[str, list[str]] = {}
    for choice, candidate in choose(compared).items():
        chosen.setdefault(candidate.name, []).append(choice)
    head = ["candidate", "choice", "score", "percentile score", "fitted parameters", "chosen for"] + [
        f"{e[-4:]} {k}" for e in ENVIRONMENTS for k in ("response", "percentile", "count")
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for candidate, records in compared:
        cells = [
            candidate.name,
            candidate.choice,
            f"{score(records):.3f}",
            f"{score(records, 'percentile') * 100:.2f} pt",
            str(candidate.parameters),
            ", ".join(chosen.get(candidate.name, [])),
        ]
        for environment in ENVIRONMENTS:
            for kind in ("response", "percentile", "count"):
                found = errors_of(records, environment, kind)
                value = rms(found)
                cells.append(
                    "" if not found else (f"{value * 100:.2f} pt" if kind == "percentile" else f"{value:.1%}")
                )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def candidate_json(candidate: Candidate, records: list[dict]) -> dict[str, object]:
    """A candidate's score and its RMS errors per environment and kind (relative; a percentile in points),
    as ``cross-validate --compare --format json`` lists them."""
    errors = {
        environment: {
            kind: rms(errors_of(records, environment, kind)) * (100 if kind == "percentile" else 1)
            for kind in KINDS.values()
            if errors_of(records, environment, kind)
        }
        for environment in ENVIRONMENTS
    }
    return {"candidate": candidate.name, "choice": candidate.choice, "score": score(records), "rms": errors}


def write(result: CrossValidation, compared: list[tuple[Candidate, list[dict]]] | None = None) -> None:
    """Write the model's error and the studies' ranges (:data:`MODEL_FILE`), the rows (:data:`ROWS_FILE`)
    and the docs' tables (with ``compared``, the candidates' comparison too)."""
    MODEL_FILE.parent.mkdir(exist_ok=True)
    MODEL_FILE.write_text(model_toml(result), encoding="utf-8")
    records = [p.record() for p in result.predictions]
    ROWS_FILE.write_text(
        json.dumps({"level": result.level, "candidate": result.candidate.name, "rows": records}, indent=1)
        + "\n",
        encoding="utf-8",
    )
    calibrate.write_block(DOCS, "crossval-figures", rows_table(result))
    calibrate.write_block(DOCS, "crossval-own-errors", own_errors_table(records))
    if compared:
        calibrate.write_block(DOCS, "crossval-candidates", comparison_table(compared))


def main(argv: list[str] | None = None) -> int:
    """Cross-validate the shipped model and print every left-out row and the figures (``--format json``:
    the rows as JSON); ``--compare``: every candidate's score and errors per environment and kind."""
    argv = sys.argv[1:] if argv is None else argv
    result = cross_validate()
    records = [p.record() for p in result.predictions]
    if "--format" in argv and argv[argv.index("--format") + 1] == "json":
        print(
            json.dumps(
                {
                    "level": result.level,
                    "candidate": result.candidate.name,
                    "rows": records,
                    "figures": figures(records),
                },
                indent=1,
            )
        )
        return 0
    for p in result.predictions:
        print(
            f"{p.row.case.id:<40} {p.measured:>8.4g} model {p.model:>8.4g} band {p.low:>8.4g} "
            f"to {p.high:>8.4g} {'in' if p.inside else 'OUT'}"
        )
    for what, figure, met in targets(records):
        print(f"{'met' if met else 'NOT met'}: {what}: {figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
