"""Weighted least squares of a scenario's free parameters over measured rows: values, intervals, residuals
and which parameters the rows do not pin.

The one fit of qmodel's scenarios: ``qmodel scenario calibrate FILE MEASUREMENTS`` calls it on a planner's
rows, the GDPS study's calibration (:mod:`qmodel.scenario.calibrate`) on the study's, and a
cross-validation on any subset of them. A free parameter is a dotted scenario key
(``locks.lockable_items``, ``member.G1P1.other``, ``member.*.think_time`` for each member's own,
``crossing_latency``), as a --variants header or a [band] point names it.

Method: the weighted residual of each row (:func:`qmodel.scenario.measurements.weighted_residual`:
(model − measured) / (σ × measured), σ the row's (:func:`qmodel.scenario.measurements.row_sigma`: the
model's run-to-run spread of its kind, the band's σ of the same measurement), times √weight) is
minimised over all rows by scipy's trust-region reflective least_squares within each parameter's
bounds; a positive scale parameter (a count of lockable items, a gamma shape) on a log scale. The
covariance of the fitted scale is D (JᵀJ)⁻¹ D, J the Jacobian of the weighted residuals at the optimum
and D the diagonal of each parameter's scale factor max(1, S_j) (below); the interval of each parameter
on its fitted scale ± z × max(1, S_j) standard errors of the σ taken as known (:meth:`Fit.intervals`:
the normal's z, as the σ are declared, not estimated from the rows; the PDG's scale factor widens it
where the rows scatter more than their σ, and never narrows it), n the rows the parameters move (below).
No Student t: with the σ known, t(n − p) would widen an interval up to 6.5 times (one row left over)
exactly where the rows agree with their σ (trial 6, W4).

The scale factors (the rule, written before its effect on any file was seen; issue 32, trial 5's N5 and
N6). A row's σ is a declared, known scatter, so no interval is narrower than the σ imply: S_j is never
below 1 (the Particle Data Group's scale factor S = √max(1, χ²/ν), Review of Particle Physics,
Introduction, "Averages and fits": rows that agree better than their σ do not pin a parameter tighter
than the σ allow). Where the rows scatter more than their σ, the scatter that widens parameter j is
that of the rows that inform j, each in proportion to its share of j's estimate: with C = (JᵀJ)⁻¹Jᵀ
(x̂ moves by C r), row i's share u_ji = C_ji² / Σ_k C_jk² of the variance of x̂_j, and h_i the
row's leverage (the diagonal of J (JᵀJ)⁻¹ Jᵀ, whose complement 1 − h_i is the share of σ² a correct
model leaves in r_i²): S_j² = max(1, Σ_i u_ji r_i² / Σ_i u_ji (1 − h_i)) over the n rows counted
(below), leaving out of S_j each row whose share u_ji is below 1/(9 n), and its pull on j's estimate
with it: the rows K_j kept have their residuals from j estimated on them alone, the other parameters
held where all rows put them (ř = M r_K, M = I − c cᵀ / cᵀc, c = C_j on K_j), set against what a
correct model leaves there (E[ř_i²] = (M P_KK M)_ii, P = I − J C the full fit's residual projection):
S_j² = max(1, Σ_K u_ji ř_i² / Σ_K u_ji E[ř_i²]) (:func:`scale_factors`; with no row cut, ř = r and
E[ř_i²] = 1 − h_i, the rule as before).

That cut is the PDG's own: a measurement whose weight in the mean is below 1/(9N) (its error δ_i above
3 √N times the error δ̄ of the mean) adds little to the mean but can move S strongly, so the PDG leaves
it out of S. For one parameter fitted to N equal rows (each share 1/N) nothing is cut and S_j² is the
PDG's χ²/(N − 1); with rows cut, here χ²/(N − 1) of the N rows kept about their own mean (the PDG's
N − 1 counts the measurements kept; its χ² may be about the mean of all). The cut replaced letting the
share alone make it smooth (the rule before), which failed its stated purpose where nothing else is
left over: S_j² is a ratio, unchanged by the scale of u, so where the rows that carry j's estimate have
leverage ~1 the denominator was the tiny-share row's alone and S_j that row's |r| whatever its share
(trial 7, W4b: CICB.other widened ×2.1 by a throughput row carrying about 0.2% of its variance). The
cut was decided by the rule's source, not by the file's answer. Two details were seen to be needed on
files, and follow from the PDG's N − 1 counting only the measurements kept: cutting the row but keeping
the full fit's r and h changes nothing in W4b (the response row's room left over, 1 − h, and its
residual are the throughput row's: its r / √(1 − h) is exactly that row's 2.1), hence j estimated on
the kept rows alone; and refitting every parameter on the kept rows let faint couplings fit them
exactly (trial 6's plexw on its percentile rows: S 1 for rows off by 2 σ), hence the others held.

A row a parameter barely moves (a closed member's throughput where only its ``other`` is free) thus
does not widen that parameter, while its misfit still counts in full in s² = RSS / (n − p), which the
summary reports with the rows that carry most of it and the free key that would move each
(:meth:`Fit.summary`). Where no row is left over to check parameter j (Σ_K u_ji E[ř_i²] at or below
1e-9), S_j = 1: its interval takes the rows' σ as known.

A row no free parameter moves is a check of the model, not of the fit (the criterion, written before any
result): where its slope (its row of J) on every parameter is at most 1e-4 of the largest slope any row
has on that parameter (a parameter no row moves moves none), the fit cannot use it to pin anything and
cannot bring it nearer its measurement. Such a row is shown with its residual and said to be a check
(:meth:`Fit.notes`), and is not counted: n above is the rows that are moved (n − p the rows left over),
s² is their RSS alone, and its miss is not the worst row's. Its miss still counts as the model's
(:func:`misfits`). The class holds: an open member's throughput or transaction count (its arrival rate
sets it) where no free key sets its load; a lock wait that repeats the file's measured_wait while
lockable_items is inferred again at every trial (:func:`lock_refit`: met by construction); a row only a
parameter the calibration held at its prior moved (the refit without it has no slope there); a row of a
quantity the free keys do not reach (an open member's CPU with no CPU key free). Rows of weight 0 are
shown, not fitted, as before. The bound 1e-4 leaves out a row whose share of any parameter's information
(its slope squared) is below 1e-8 of the row that carries most of it: a row met by construction shows
only the noise of the forward difference (measured after the bound was set, on a planner's three-member
file of trial 4: the repeated lock wait's slopes 1.3e-7 to 1e-6 of the largest; an open member's
throughput 0).

Each parameter is pulled toward where it starts by 1e-3 of a weighted residual per its whole range, far
below any row's: a parameter no row moves stays where the file has it (a step along a direction no row
constrains would otherwise leave it anywhere). A parameter that ends at a bound has its slope into the
bounds taken by a one-sided difference (scipy's Jacobian has 0 there).

How the rows identify each parameter (the criterion, written before any result), in this order: (a)
"not pinned: the rows do not pin it" where more than 0.1 of it lies in the directions no row constrains
(the right singular vectors of the Jacobian with a singular value below 1e-6 of the largest, and with
fewer rows than parameters the p − n directions no row reaches: its interval is then its whole bounds;
the flag names the parameters it moves with, and where every row is at one distance says that a
distance key sets the growth with distance); (b) "at its bound" where it ends within a millionth of
its range of a bound (never "pinned": the rows may want it further); (c) "not pinned" where its 95%
interval is 90% or more of its whole range; weakly identified where (d) the ends of its 95% interval
are more than a factor of 2 apart (the high end above twice the low one, or the low end at or below 0),
one rule for every parameter alike, whichever scale it is fitted on (trial 4 of issue 32: a linear
parameter was once weak only where its interval reached further from its value than the value itself,
which called ±97% pinned while a log-scale one needed about ±35%), or (e) it is more than 0.99
correlated with another parameter (the rows pin a combination, not each); (f) weakly identified where
no row is left over (n ≤ p): the rows determine it but nothing checks the fit, and its interval takes
each row's σ as known (s² = 1, ± z); else pinned, which thus needs n − p ≥ 1. Besides the labels
(:meth:`Fit.notes`): the rows a parameter at its bound still misses by more than 2 σ on the side the
bound stops, and a row with more than half the residual sum.

A calibration (:func:`calibrate_fit`, what ``qmodel scenario calibrate`` runs) holds a parameter the rows
do not pin at its prior value: after the fit, every parameter not pinned by (a) or (c) (whether or not
at a bound) is put back to the value the scenario gives it (the file's, or the default) and the fit is
redone from the others' values without it, until each parameter left passes (a) and (c) (n ≥ p left,
then: p − n directions no row reaches flag at least one parameter). A held parameter is not written to
the fit file (the next reading takes the file's own) and no band point moves it (:mod:`qmodel.scenario.band`
gives it the range the studies support, where they give one). :meth:`Fit.summary` says how many rows pin
how many parameters, which are held and why, and the measurement that would help most;
:func:`misfits` the members' misses the band carries (:mod:`qmodel.scenario.band`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from statistics import NormalDist
from typing import NamedTuple

import numpy as np

from qmodel.errors import ConvergenceError, InputError
from qmodel.limits import TIME_LIMIT, duration, refuse_too_large
from qmodel.scenario.compose import (
    LOAD_ONLY_FIELDS,
    LOAD_ONLY_MEMBER_FIELDS,
    FixedParts,
    fixed_parts,
    load_free_groups,
    load_only_values,
    refuse_overloaded_today,
    same_load_free,
    solve_at,
    solved_together,
    solved_values,
)
from qmodel.scenario.files import fit_path, write_whole
from qmodel.scenario.measurements import (
    ERROR_KINDS,
    QUANTITIES,
    SHARES,
    Measurement,
    result_value,
    row_sigma,
    throughput_weighted,
    weighted_residual,
)
from qmodel.scenario.overrides import with_overrides, with_values
from qmodel.scenario.predictive import sigma_points
from qmodel.scenario.propagation import at_zero_km
from qmodel.scenario.schema import key_of
from qmodel.scenario.spec import PLAUSIBLE, BandSpec, Member, Scenario, ScenarioError
from qmodel.tomlread import read_toml
from qmodel.units import UNITS, readable, significant

WEAK_FACTOR = 2.0  # a 95% interval whose ends are more than this factor apart: weakly identified
WEAK_CORRELATION = 0.99
# Each parameter's pull toward where it starts, in weighted residuals per its whole range (fitted scale):
# far below any row's (a 10% row at 1/σ = 10 per unit), it keeps a parameter the rows do not move where the
# file has it, where a step along a direction no row constrains would leave it anywhere in its range
PULL = 1e-3
WHOLE_RANGE = 0.9  # an interval this share of its parameter's allowed range (on its scale): not pinned
# The keys whose effect is the growth of the answer with distance: rows at one distance cannot pin them
GROWTH_KEYS = ("lock_span", "resolution_round_trips", "crossing_latency", "fibre_speed", "redispatch")
LEVEL = 0.95
_FLAT = 1e-6  # a singular value of the Jacobian below this share of the largest: a direction no row pins
_NULL = 0.1  # a parameter with more than this share in such directions: the rows do not pin it
_UNMOVED = 1e-4  # a row's slope on every parameter at most this share of the largest: a check, not counted
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
    SI, ``log`` whether it is fitted on a log scale; ``floor`` (SI) the least value above 0 a scenario
    file takes for it (:data:`qmodel.scenario.spec.PLAUSIBLE`) where 0 is its low bound, else 0."""

    key: str
    low: float
    high: float
    log: bool
    floor: float = 0.0

    def to_scale(self, value: float) -> float:
        """The value (SI) on the scale it is fitted on."""
        return float(np.log(value)) if self.log else float(value)

    def from_scale(self, x: float) -> float:
        """The value (SI) of ``x`` on the fitted scale, as a scenario file takes it (:meth:`admissible`)."""
        return self.admissible(float(np.exp(x)) if self.log else float(x))

    def admissible(self, value: float) -> float:
        """``value`` (SI) within the bounds, and a value between 0 and :attr:`floor` (which no file takes:
        below what the model's arithmetic holds) snapped to the nearer of the two: every value a fit
        writes is one the next reading of the file accepts."""
        value = min(max(value, self.low), self.high)
        if 0 < value < self.floor:
            return 0.0 if value < self.floor / 2 else self.floor
        return value


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
            raise InputError(
                "free parameter",
                key,
                "one of " + ", ".join(k.replace("member.", "member.NAME.") for k in FREE_KEYS),
            )
        low, high, log = _BOUNDS[kind]
        floor = _floor(kind) if low == 0 else 0.0
        free += [
            FreeParameter(f"member.{m}.{parts[2]}" if m else key, low, high, log, floor) for m in members
        ]
    keys_given = [p.key for p in free]
    twice = next((k for k in keys_given if keys_given.count(k) > 1), None)
    if twice:
        raise InputError("free parameter", twice, "each parameter once", reason="named twice")
    return tuple(free)


def _schema_key(key: str) -> tuple[str, str]:
    """The (table, name) of a dotted free key's schema row: ``member.NAME.other`` as ("member", "other")."""
    parts = key.split(".")
    if parts[0] == "member":
        return "member", parts[-1]
    return ("", key) if len(parts) == 1 else (parts[0], parts[1])


def _floor(kind: str) -> float:
    """The least value above 0 a scenario file takes for the free key ``kind`` (SI): its dimension's
    plausible low end, :data:`qmodel.scenario.spec.PLAUSIBLE`."""
    unit = key_of(*_schema_key(kind)).unit
    return PLAUSIBLE.get(UNITS[unit].dimension, (0.0, np.inf))[0]


def _count(count: int, noun: str) -> str:
    """``count`` ``noun``s: "1 row", "3 rows"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def unit_of(key: str) -> str:
    """The unit a free key's value is read in (its schema row's: ``ms`` for ``member.G1P1.other``)."""
    return key_of(*_schema_key(key)).unit


def shown_value(key: str, value: float) -> str:
    """A free key's value (SI) as the tables show it (:func:`qmodel.units.readable`; :func:`file_value`
    writes it)."""
    return readable(value, unit_of(key))


def shown_value_of(quantity: str, value: float) -> str:
    """A measured row's value (SI) as the tables show it (:func:`qmodel.units.readable`)."""
    return readable(value, QUANTITIES[quantity])


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


def load_only(key: str) -> bool:
    """A free key the load-free parts do not read (:data:`qmodel.scenario.compose.LOAD_ONLY_FIELDS`, a
    member's :data:`~qmodel.scenario.compose.LOAD_ONLY_MEMBER_FIELDS`: the lock parameters, a member's
    other and think time): a fit of such keys alone computes each run's load-free parts once."""
    table, name = _schema_key(key)
    return name in (LOAD_ONLY_MEMBER_FIELDS if table == "member" else LOAD_ONLY_FIELDS)


@dataclass
class LoadFree:
    """What a caller whose trial scenarios differ only in keys :func:`load_only` takes keeps between
    trials: each run's load-free parts, by its facts (:attr:`Measurement.run`) and its rows' distances,
    computed once; and each run's row values by the trial's
    :func:`~qmodel.scenario.compose.load_only_values`, so a trial met again (a secant's last step, the
    base of a slope) is not solved again."""

    parts: dict[tuple[object, ...], FixedParts] = field(default_factory=dict)  # by run and distances
    values: dict[tuple[object, ...], np.ndarray] = field(default_factory=dict)


def model_values(
    scenario: Scenario, rows: Sequence[Measurement], load_free: LoadFree | None = None
) -> np.ndarray:
    """The model's value (SI) of each row, NaN where the scenario has no answer (thrashing): one solve
    per run (subchannels, Metro Mirror, castout owner) over the distances of its rows.

    :param load_free: where given, each run's load-free parts and values are read from it, and put there
        where missing (:class:`LoadFree`): for a caller whose scenarios differ only in keys
        :func:`load_only` takes and whose rows are the same at every call (the inference of
        lockable_items, a fit of lock parameters and members' others)."""
    values = np.full(len(rows), np.nan)
    for run in sorted({row.run for row in rows}):
        picked = [i for i, row in enumerate(rows) if row.run == run]
        key = (run, *load_only_values(scenario))
        if load_free is not None and key in load_free.values:
            values[picked] = load_free.values[key]
            continue
        distances = sorted({rows[i].distance for i in picked})
        at, columns = with_overrides(scenario, *run), np.array(distances)
        fixed = None
        if load_free is not None:
            where = (run, *distances)  # a run's parts at its rows' distances
            fixed = load_free.parts.get(where) or load_free.parts.setdefault(where, fixed_parts(at, columns))
        result = solve_at(at, columns, fixed=fixed)
        for i in picked:
            row = rows[i]
            values[i] = result_value(
                result, distances.index(row.distance), row.member, row.quantity, row.interval
            )
        if load_free is not None:
            load_free.values[key] = values[picked]
    return values


@dataclass(frozen=True)
class Held:
    """A free parameter a calibration held at its prior ``value`` (SI: the file's, or the default) because
    the rows do not pin it (:func:`calibrate_fit`); ``reason`` says why, as the fit that tried it found."""

    parameter: FreeParameter
    value: float
    reason: str
    source: str = "the file's"  # or "the default": where the prior value comes from


@dataclass(frozen=True)
class Misfit:
    """A member's miss on a calibration's rows of one kind (:data:`ERROR_KINDS`): ``spread`` the root mean
    square of (measured − model) / model over its ``rows`` fitted rows (a row of "all" counts for every
    member; a row without an answer as 1); ``row`` the label of the row it misses most, with that row's
    ``measured`` and ``model`` values (SI; model NaN: no answer)."""

    member: str
    kind: str
    spread: float
    rows: int
    row: str
    measured: float
    model: float

    @property
    def off(self) -> float:
        """The worst row's (model − measured) / measured, as calibrate's "off" column shows it."""
        return (self.model - self.measured) / self.measured if self.measured else float("nan")


def misfits(rows: Sequence[Measurement], model: np.ndarray, members: Sequence[str]) -> tuple[Misfit, ...]:
    """Each member's :class:`Misfit` of each kind its fitted rows (weight above 0) measure: the evidence a
    calibration gives about the model's error on this file (:mod:`qmodel.scenario.band` adds its part
    beyond a run's scatter to the band). A row's relative miss is (measured − model) / model, 1 where the
    model has no answer there."""
    found = []
    for member in members:
        for kind in dict.fromkeys(ERROR_KINDS.values()):
            picked = [
                (row, value)
                for row, value in zip(rows, model, strict=True)
                if row.weight > 0 and ERROR_KINDS.get(row.quantity) == kind and row.member in (member, "all")
            ]
            if not picked:
                continue
            relative = np.array(
                [(row.value - value) / value if value > 0 else 1.0 for row, value in picked]
            )  # NaN > 0 is False: no answer counts as 1
            worst = int(np.argmax(np.abs(relative)))
            row, value = picked[worst]
            spread = float(np.sqrt(np.mean(relative**2)))
            found.append(Misfit(member, kind, spread, len(picked), row.label, row.value, float(value)))
    return tuple(found)


def weak_interval(low: float, high: float) -> bool:
    """Whether an interval's ends (SI, or on any scale whose 0 is no value) are more than
    :data:`WEAK_FACTOR` apart: high > WEAK_FACTOR × low, or low at or below 0 (criterion (d) of the
    module, for every parameter alike)."""
    return not (low > 0 and high <= WEAK_FACTOR * low)


def moved_rows(jacobian: np.ndarray) -> np.ndarray:
    """(n,) bool for the Jacobian (n, p) of n fitted rows' weighted residuals: a row some free parameter
    moves, its slope on that parameter above :data:`_UNMOVED` of the largest slope any row has on it
    (the module docstring's criterion; a parameter no row moves moves none)."""
    jacobian = np.abs(np.asarray(jacobian, float))
    if not jacobian.size:
        return np.zeros(jacobian.shape[0], dtype=bool)
    largest = jacobian.max(axis=0)
    return ((jacobian > _UNMOVED * largest) & (largest > 0)).any(axis=1)


# The free key that sets a row of each quantity most directly (a member's own; "all": every member's):
# the key the summary tells the planner to free where that row carries the scatter (the module docstring)
_MOVING_KEYS = {
    "response_time": "other",
    "transactions": "think_time",
    "throughput": "think_time",
    "cpu_of_one_cp": "cpu",
    "share_within_goal": "shape",
}


def moving_key(row: Measurement, scenario: Scenario) -> str:
    """The free key that sets ``row`` most directly: a response time its member's ``other``, a closed
    member's count or throughput its ``think_time`` (an open member's is its stated arrival rate: ""),
    a CPU its ``cpu``, a share within the goal its ``shape``, a lock wait ``locks.lockable_items``;
    ``member.*.KEY`` for a row of "all"."""
    if row.quantity == "lock_contention":
        return "locks.lockable_items"
    key = _MOVING_KEYS.get(row.quantity, "")
    if key == "think_time":
        members = [m for m in scenario.members if row.member in ("all", m.name)]
        if all(m.open for m in members):
            return ""
    if not key:
        return ""
    return f"member.{'*' if row.member == 'all' else row.member}.{key}"


def _matches(key: str, fitted: str) -> bool:
    """Whether the fitted key ``fitted`` is ``key`` or one of the keys ``member.*.KEY`` stands for."""
    if key == fitted:
        return True
    parts, given = key.split("."), fitted.split(".")
    return len(parts) == len(given) == 3 and parts[1] == "*" and parts[2] == given[2] and parts[0] == given[0]


@dataclass(frozen=True)
class Fit:
    """A fit's result (:func:`fit_scenario`): the ``parameters``, their values ``x`` and ``covariance``
    on the fitted scale, each row's model value (SI, NaN: no answer) and weighted residual, the
    degrees of freedom n − p, and the scenario at the fit; ``held`` the free parameters a calibration
    held at their prior values (:func:`calibrate_fit`), fitted no more."""

    parameters: tuple[FreeParameter, ...]
    x: np.ndarray
    covariance: np.ndarray
    rows: tuple[Measurement, ...]
    model: np.ndarray
    residuals: np.ndarray
    jacobian: np.ndarray
    scenario: Scenario
    held: tuple[Held, ...] = ()

    @property
    def counted(self) -> np.ndarray:
        """(n,) bool: each row fitted (weight above 0) and moved by some free parameter
        (:func:`moved_rows`); a fitted row not counted is a check of the model (the module docstring)."""
        fitted = np.array([row.weight > 0 for row in self.rows], dtype=bool)
        counted = np.zeros(len(self.rows), dtype=bool)
        counted[fitted] = moved_rows(self.jacobian)
        return counted

    @property
    def checks(self) -> tuple[Measurement, ...]:
        """The fitted rows no free parameter moves: checks of the model, not counted (:attr:`counted`)."""
        return tuple(
            row
            for row, counted in zip(self.rows, self.counted, strict=True)
            if row.weight > 0 and not counted
        )

    @property
    def dof(self) -> int:
        """Rows the parameters move (:attr:`counted`) less parameters."""
        return int(self.counted.sum()) - len(self.parameters)

    @property
    def values(self) -> dict[str, float]:
        """Each parameter's fitted value, SI, by key."""
        return {p.key: p.from_scale(x) for p, x in zip(self.parameters, self.x, strict=True)}

    def standard_errors(self) -> np.ndarray:
        """On the fitted scale."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def null_space(self) -> np.ndarray:
        """(k, p): the directions of the parameters (fitted scale) no row constrains: the right singular
        vectors of the Jacobian whose singular value is below 1e-6 of the largest, and with fewer rows
        than parameters the p − n directions no row reaches."""
        if not self.jacobian.size:
            return np.eye(len(self.parameters))
        _, singular, vt = np.linalg.svd(self.jacobian, full_matrices=True)
        rank = int((singular > _FLAT * singular.max(initial=0.0)).sum())
        return vt[rank:]

    def null_loading(self) -> np.ndarray:
        """Per parameter, its share (0 to 1) in the directions no row constrains (:meth:`null_space`)."""
        return np.sqrt((self.null_space() ** 2).sum(axis=0))

    def intervals(self, level: float = LEVEL) -> dict[str, tuple[float, float]]:
        """Each parameter's ``level`` interval (SI) on its fitted scale, clipped to its bounds: ± z ×
        max(1, S_j) standard errors of the rows' σ taken as known (the covariance carries the scale factor
        max(1, S_j), :func:`scale_factors`; the module docstring). A parameter no row constrains
        (:meth:`null_loading` above 0.1) its whole bounds."""
        z = NormalDist().inv_cdf((1 + level) / 2)
        halves = z * self.standard_errors()
        unconstrained = self.null_loading() > _NULL
        ends = {}
        for p, x, half, free in zip(self.parameters, self.x, halves, unconstrained, strict=True):
            low, high = (
                (p.low, p.high)
                if free
                else (
                    p.from_scale(float(np.clip(x + sign * half, p.to_scale(p.low), p.to_scale(p.high))))
                    for sign in (-1, 1)
                )
            )
            ends[p.key] = (low, high)
        return ends

    def band_points(self) -> list[tuple[dict[str, float], float]]:
        """The sigma points of the joint normal of the parameters the rows pin (:meth:`null_loading` at
        most 0.1: the fit's covariance over them, on their fitted scales), by
        :func:`qmodel.scenario.predictive.sigma_points` (±√3 σ along each principal axis, weight 1/6,
        for up to 3 of them; ±√p σ, weight 1/(2p), for p > 3), each value past its bound put at the
        bound: each point a full set of the parameters' values (SI) by key, with its weight. The fit
        itself (the rest of the weight) is not among them, nor a point that is the fit (an axis of no
        variance); the parameters the rows do not pin stay at the fit's value (their range is not the
        fit's to give)."""
        pinned = np.flatnonzero(self.null_loading() <= _NULL)
        if pinned.size == 0:
            return []
        kept = [self.parameters[i] for i in pinned]
        bounds = (np.array([p.to_scale(p.low) for p in kept]), np.array([p.to_scale(p.high) for p in kept]))
        points = sigma_points(self.x[pinned], self.covariance[np.ix_(pinned, pinned)], bounds)
        found = []
        for moved, weight in points[1:]:
            if np.array_equal(moved, self.x[pinned]):
                continue  # the fit itself: its weight stays with the fit
            x = self.x.copy()
            x[pinned] = moved
            found.append(({p.key: p.from_scale(v) for p, v in zip(self.parameters, x, strict=True)}, weight))
        return found

    def correlation(self) -> np.ndarray:
        """The parameters' correlation matrix (NaN where a variance is 0)."""
        se = self.standard_errors()
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.covariance / np.outer(se, se)

    def at_bound(self, parameter: FreeParameter) -> float | None:
        """The bound (SI) the parameter's value ends at (within a millionth of its range, as the fit's
        rounding leaves it, and inside its own interval), or None. A millionth of a wide linear range
        is not at its bound where the interval excludes the bound (trial 9, Q2: a think time of 18 ms,
        interval 15 to 21 ms, was said at its bound 1 us, a millionth of 10⁶ s being 1 s)."""
        value = self.values[parameter.key]
        ends = [parameter.low, parameter.high] + ([0.0] if parameter.floor else [])
        width = parameter.to_scale(parameter.high) - parameter.to_scale(parameter.low)
        low, high = self.intervals()[parameter.key]
        rounding = 1e-9 * max(abs(low), abs(high))  # the interval's ends through the fitted scale and back
        return next(
            (
                end
                for end in ends
                if (
                    end == value
                    or (not parameter.log and abs(value - end) <= 1e-6 * width)
                    or (parameter.log and end > 0 and abs(np.log(value / end)) <= 1e-6 * width)
                )
                and low - rounding <= end <= high + rounding
            ),
            None,
        )

    def weak(self) -> dict[str, str]:
        """Why each parameter the rows do not pin is so (the module's criterion), by key; "" if pinned.
        A reason that starts "at its bound" or "not pinned" is shown as it is (:meth:`label`)."""
        reasons = {p.key: "" for p in self.parameters}
        null = self.null_space()
        loading = np.sqrt((null**2).sum(axis=0))
        correlation = self.correlation()
        keys = [p.key for p in self.parameters]
        distances = {row.distance for row, counted in zip(self.rows, self.counted, strict=True) if counted}
        wholes = self.whole_range()
        for i, (p, (low, high)) in enumerate(zip(self.parameters, self.intervals().values(), strict=True)):
            bound = self.at_bound(p)
            whole = wholes[i]
            if loading[i] > _NULL:
                together = [
                    keys[j]
                    for j in range(len(keys))
                    if j != i and abs(float(null[:, i] @ null[:, j])) > _NULL
                ]
                reasons[p.key] = "not pinned: the rows do not pin it" + (
                    f" apart from {', '.join(together)}" if together else ""
                )
                if len(distances) == 1 and _schema_key(p.key)[1] in GROWTH_KEYS:
                    reasons[p.key] += (
                        f" (all rows at one distance, {next(iter(distances)) / 1e3:g} km: what it sets is "
                        "the growth with distance; rows at a second distance pin it)"
                    )
                continue
            if bound is not None:
                reasons[p.key] = f"at its bound {shown_value(p.key, bound)}" + (
                    " with the whole allowed range as its interval" if whole else ""
                )
                continue
            if whole:
                reasons[p.key] = f"not pinned: its {LEVEL:.0%} interval is (nearly) its whole allowed range"
                continue
            if self.dof <= 0:
                counts = f"{_count(self.dof + len(keys), 'row')} for {_count(len(keys), 'parameter')}"
                reasons[p.key] = (
                    f"no row is left over to check it ({counts}): its interval takes each row's σ as known"
                )
                continue
            partner = [
                keys[j] for j in range(len(keys)) if j != i and abs(correlation[i, j]) > WEAK_CORRELATION
            ]
            if weak_interval(low, high):
                reasons[p.key] = (
                    f"its {LEVEL:.0%} interval's ends are more than a factor of {WEAK_FACTOR:g} apart"
                )
            elif partner:
                reasons[p.key] = f"correlated above {WEAK_CORRELATION:g} with {', '.join(partner)}"
        return reasons

    def whole_range(self) -> np.ndarray:
        """(p,) bool: each parameter's 95% interval is :data:`WHOLE_RANGE` or more of its allowed range, on
        its fitted scale (criterion (c) of the module)."""
        return np.array(
            [
                p.to_scale(high) - p.to_scale(low) >= WHOLE_RANGE * (p.to_scale(p.high) - p.to_scale(p.low))
                for p, (low, high) in zip(self.parameters, self.intervals().values(), strict=True)
            ],
            dtype=bool,
        )

    def unpinned(self) -> dict[str, str]:
        """The parameters the rows do not pin by criterion (a) or (c) of the module (the directions no row
        constrains, or an interval that is nearly the whole allowed range, at a bound or not), with why
        (:meth:`weak`): what a calibration holds at its prior (:func:`calibrate_fit`)."""
        loose = (self.null_loading() > _NULL) | self.whole_range()
        weak = self.weak()
        return {p.key: weak[p.key] for p, free in zip(self.parameters, loose, strict=True) if free}

    def misfits(self) -> tuple[Misfit, ...]:
        """Each member's miss on the fitted rows, by kind (:func:`misfits`)."""
        return misfits(self.rows, self.model, [m.name for m in self.scenario.members])

    def summary(self) -> str:
        """How many rows fit how many parameters and how many of them the rows pin, which were held at
        their prior and how many rows are left over; how the rows scatter against their σ
        (:meth:`scatter_words`); and the measurement that would help most (:meth:`most_needed`)."""
        rows = int(self.counted.sum())
        weak = self.weak()
        fitted = len(self.parameters)
        pinned = sum(1 for p in self.parameters if not weak[p.key])
        total = fitted + len(self.held)
        line = f"{_count(rows, 'row')} fit " + (
            f"{fitted} of {_count(total, 'parameter')}" if self.held else _count(fitted, "parameter")
        )
        if fitted:
            line += ", " + (
                ("it pinned" if fitted == 1 else "each pinned")
                if pinned == fitted
                else ("not pinned" if fitted == 1 else "none of them pinned")
                if pinned == 0
                else f"{pinned} of them pinned"
            )
        clauses = []
        if self.held:
            names = ", ".join(h.parameter.key for h in self.held)
            clauses.append(f"{names} held at {'its' if len(self.held) == 1 else 'their'} prior value")
        if fitted and self.dof >= 1:
            clauses.append(f"{_count(self.dof, 'row')} left over to check them")
        elif fitted and self.dof == 0:
            clauses.append("as many rows as parameters, none left over to check them")
        elif fitted:
            clauses.append("fewer rows than parameters")
        if self.checks:
            clauses.append(
                f"{_count(len(self.checks), 'row')} no free parameter moves "
                f"{'checks' if len(self.checks) == 1 else 'check'} the model, not counted"
            )
        line += (": " + "; ".join(clauses) if clauses else "") + "."
        scatter = self.scatter_words()
        needed = self.most_needed()
        return (
            line
            + (f" {scatter}" if scatter else "")
            + (f" The measurement that would help most: {needed}." if needed else "")
        )

    def scatter(self) -> float:
        """s² = RSS / (n − p) of the counted rows' weighted residuals (χ²/ν); NaN with no row left over."""
        if self.dof < 1:
            return float("nan")
        counted = self.residuals[self.fitted_mask][self.counted[self.fitted_mask]]
        return float(counted @ counted) / self.dof

    @property
    def fitted_mask(self) -> np.ndarray:
        """(n,) bool: each row fitted (weight above 0)."""
        return np.array([row.weight > 0 for row in self.rows], dtype=bool)

    def scale_factors(self) -> np.ndarray:
        """(p,) each parameter's scale factor S_j (:func:`scale_factors`), as its covariance carries it."""
        counted = self.counted[self.fitted_mask]
        return scale_factors(self.jacobian[counted], self.residuals[self.fitted_mask][counted])

    def scatter_words(self) -> str:
        """One sentence on the rows' scatter against their σ (the module docstring's rule), "" where no row
        is left over: where s² ≤ 1, that the intervals rest on the σ; where s² > 1, S = √s², the fewest
        counted rows (largest squared weighted residual first, at most 3) whose squares make more than
        half the residual sum, each with the free key that would move it (:func:`moving_key`: "free KEY"
        where the fit does not fit it, "check" where it does), and how much the intervals widen."""
        s2 = self.scatter()
        if not np.isfinite(s2):
            return ""
        if s2 <= 1:
            return (
                f"The rows agree within their σ (χ²/ν {significant(s2, 2)}), so each interval is the one the "
                "σ give, never narrower."
            )
        fitted = [row for row in self.rows if row.weight > 0]
        counted = self.counted[self.fitted_mask]
        squares = np.where(counted, self.residuals[self.fitted_mask], 0.0) ** 2
        order = np.argsort(-squares, kind="stable")
        carried, total = [], float(squares.sum())
        for i in order[:3]:
            carried.append(int(i))
            if squares[carried].sum() > total / 2:
                break
        fitting = {p.key for p in self.parameters}
        named, free, checked = [], [], []
        for i in carried:
            row = fitted[i]
            named.append(f"{row.label} ({self.residuals[self.fitted_mask][i]:+.1f} σ)")
            key = moving_key(row, self.scenario)
            if key and not any(_matches(key, fitted_key) for fitted_key in fitting):
                free.append(key)
            else:
                checked.append(row.label)
        advice = []
        if free:
            advice.append(
                f"free {', '.join(dict.fromkeys(free))} to move {'it' if len(named) == 1 else 'them'}"
            )
        if checked:
            them = "it" if len(checked) == 1 else "them"
            advice.append(f"check {', '.join(checked)}: a key the fit already frees sets {them}")
        widened = self.scale_factors()
        effect = (
            "No interval widens for it: the rows that inform each parameter, each by its share of the "
            "estimate, scatter within their σ."
            if widened.max() < 1.0005
            else "Each interval is widened by the scatter of the rows that inform it, each by its share of "
            f"the estimate (×{significant(widened.min(), 3)} to ×{significant(widened.max(), 3)})."
        )
        return (
            f"The rows scatter more than their σ (χ²/ν {significant(s2, 3)}, S "
            f"{significant(np.sqrt(s2), 3)}), most of it in {', '.join(named)}: {'; '.join(advice)}. {effect}"
        )

    def most_needed(self) -> str:
        """The measurement that would pin most of what the rows leave unpinned, given the rows the fit has
        (the distances they were measured at, the quantities of each member), by this rule, in order: a
        held or weakly identified key that sets the growth with distance: response times at a second
        distance besides the one measured (all rows at one) or farther out than the farthest; a member's
        key: that member's response time (its transaction count for a think time) where the rows have
        none; else the same rows over a second interval (no row left over: it checks the fit) or more
        intervals at the distances measured, named; "" where every parameter is pinned."""
        weak = self.weak()
        loose = [h.parameter.key for h in self.held] or [p.key for p in self.parameters if weak[p.key]]
        distances = sorted(
            {row.distance for row, counted in zip(self.rows, self.counted, strict=True) if counted}
        )
        growth = [key for key in loose if _schema_key(key)[1] in GROWTH_KEYS]
        if growth and len(distances) == 1:
            return (
                f"response times at a second distance besides {distances[0] / 1e3:g} km (they pin "
                f"{', '.join(growth)}: the growth with distance)"
            )
        if growth:
            return (
                f"response times farther out than {distances[-1] / 1e3:g} km (they pin {', '.join(growth)}: "
                "the growth with distance)"
            )
        measured = {
            (row.member, row.quantity)
            for row, counted in zip(self.rows, self.counted, strict=True)
            if counted
        }
        pinning = {"think_time": ("transactions", "throughput")}  # the rows that pin a member's key
        members = [  # a member's key no row of it pins yet (else a row left over is what is wanted)
            key
            for key in loose
            if key.startswith("member.")
            and not any(
                (key.split(".")[1], quantity) in measured
                for quantity in pinning.get(key.split(".")[-1], ("response_time",))
            )
        ]
        if members:
            said = [
                f"{key.split('.')[1]}'s "
                + ("transaction count" if key.endswith("think_time") else "response time")
                for key in members
            ]
            return f"{', '.join(dict.fromkeys(said))} (they pin {', '.join(members)})"
        at = " and ".join(f"{d / 1e3:g} km" for d in distances)
        if loose and self.dof <= 0:
            return (
                f"the same rows measured over a second interval at {at} (a row left over checks the fit "
                "and sizes its intervals from the rows' own scatter)"
            )
        if loose:
            return f"the same rows measured over more intervals at {at} (they narrow {', '.join(loose)})"
        return ""

    def label(self, key: str) -> str:
        """How the rows identify the parameter ``key``, as the tables show it: "pinned", "at its bound
        ...", "not pinned: ..." or "weakly identified: ..." (:meth:`weak`)."""
        reason = self.weak()[key]
        if not reason:
            return "pinned"
        return reason if reason.startswith(("at its bound", "not pinned")) else f"weakly identified: {reason}"

    def notes(self) -> list[str]:
        """One line for each thing the rows say that the labels do not: a row the model cannot reach
        because a parameter ended at its bound (the row, the model's value there and what to check),
        and a row that carries most of the residual sum (every interval is wider for it)."""
        fitted = [row for row in self.rows if row.weight > 0]
        model = self.model[[row.weight > 0 for row in self.rows]]
        residuals = self.residuals[[row.weight > 0 for row in self.rows]]
        lines = []
        if self.checks:
            one = len(self.checks) == 1
            lines.append(
                f"{', '.join(row.label for row in self.checks)}: no free parameter moves "
                f"{'it, so it is a check' if one else 'them, so they are checks'} of the model (residual "
                "shown), not counted among the rows left over nor in the scatter that sizes the intervals"
            )
        for i, p in enumerate(self.parameters):
            bound = self.at_bound(p)
            if bound is None or not self.jacobian.size:
                continue
            name, clauses = p.key.split(".")[-1], []
            for j, row in enumerate(fitted):
                slope = self.jacobian[j, i]
                outward = slope * (1 if bound == p.high else -1)  # the residual's change past the bound
                # a row is named by the parameter that moves it most, not by one a coupling moves it by
                # a little (trial 8: BAT1's throughput named member.ONL1.other)
                mover = int(np.argmax(np.abs(self.jacobian[j])))
                if (
                    abs(residuals[j]) > 2
                    and slope
                    and mover == i
                    and np.sign(outward) == -np.sign(residuals[j])
                ):
                    side = "below" if residuals[j] > 0 else "above"  # the measured value, of the model's
                    clauses.append(
                        f"{row.member}'s {row.quantity} at {row.km:g} km, "
                        f"{shown_value_of(row.quantity, row.value)}, is {side} what the model gives with "
                        f"{name} = {shown_value(p.key, bound)} ({shown_value_of(row.quantity, model[j])})"
                    )
            if clauses:
                them = ("it", "it rests") if len(clauses) == 1 else ("them", "they rest")
                lines.append(
                    "; ".join(clauses) + f": {p.key} ends at its bound and the model cannot reach {them[0]} "
                    f"by it; check the inputs {them[1]} on (link service times, crossing_latency, the "
                    "member's profile)"
                )
        counted = self.counted[[row.weight > 0 for row in self.rows]]
        squares = np.where(counted, residuals, 0.0) ** 2  # the scatter s² is of the counted rows alone
        total = float(squares.sum())
        if self.dof >= 2 and total > 0:
            worst = int(np.argmax(squares))
            if squares[worst] > total / 2 and abs(residuals[worst]) > 2:
                row = fitted[worst]
                wider = np.sqrt(total / self.dof / ((total - squares[worst]) / (self.dof - 1)))
                off = (model[worst] - row.value) / row.value
                lines.append(
                    f"{row.label} is off {off:+.0%} ({residuals[worst]:+.1f} σ), most of the residual "
                    f"sum: the rows' scatter S is {significant(wider, 2)} times what the others give; check "
                    "that row"
                )
        return lines


def fit_scenario(
    scenario: Scenario,
    rows: Sequence[Measurement],
    free: Sequence[str | FreeParameter],
    *,
    prepare: Callable[[Scenario], Scenario] | None = None,
    start: dict[str, float] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Fit:
    """Fit the ``free`` parameters of ``scenario`` by weighted least squares over every row of ``rows``
    (the module docstring: method, interval, weak flag).

    :param scenario: the scenario; its values of the free parameters are where the fit starts.
    :param rows: the measured rows (a row of weight 0 is shown with its residual, not fitted).
    :param free: dotted keys (``member.*.other`` for each member's) or :class:`FreeParameter`.
    :param prepare: applied to the scenario at every trial before it is solved (the study's exact 0 km
        fits of each member's other and think time, :mod:`qmodel.scenario.calibrate`); an InputError or
        ConvergenceError there counts as every row 100% off, as does a trial whose route takes longer
        than the file's times measured at a distance (:func:`qmodel.scenario.propagation.at_zero_km`).
    :param start: start values (SI) by key, in place of the scenario's.
    :param progress: called with the count of evaluations so far, after each.
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
    members = [m.name for m in scenario.members]
    for row in rows:
        if row.member != "all" and row.member not in members:
            raise InputError(
                f"{row.source}, column member" if row.source else f"measured row {row.label}",
                row.member,
                "all, or a member of the scenario: " + ", ".join(members),
            )
        if not (np.isfinite(row.value) and (row.value > 0 or row.quantity in SHARES)):
            raise InputError(f"measured row {row.label}", row.value, "a finite value above 0")
    starts = {p.key: (start or {}).get(p.key, current_value(scenario, p)) for p in parameters}
    parameters = tuple(within_times(scenario, p, starts[p.key]) for p in parameters)
    low = np.array([p.to_scale(p.low) for p in parameters])  # a log-scale parameter's low end is above 0
    high = np.array([p.to_scale(p.high) for p in parameters])
    x0 = np.clip([p.to_scale(min(max(starts[p.key], p.low), p.high)) for p in parameters], low, high)
    fitted = np.array([row.weight > 0 for row in rows])

    at_zero_km(scenario)  # the file's times measured at a distance: refused here if they cannot be
    load_free = None  # the trials' load-free parts, where neither the free keys nor prepare change them
    if all(load_only(p.key) for p in parameters):
        if prepare is None:
            load_free = LoadFree()
        elif isinstance(prepare, LockRefit) and prepare.load_free is not None:
            load_free = LoadFree(prepare.load_free.parts)  # the same parts; the row values by their rows

    def trial(x: np.ndarray) -> Scenario | None:
        varied = with_values(scenario, {p.key: p.from_scale(v) for p, v in zip(parameters, x, strict=True)})
        try:
            at_zero_km(varied)  # a route (crossing_latency, fibre_speed) longer than the times measured
            return varied if prepare is None else prepare(varied)
        except (InputError, ConvergenceError):  # the prepared rows cannot take these values
            return None

    evaluations = [0]

    def residuals(x: np.ndarray) -> np.ndarray:
        at = trial(x)
        model = np.full(len(rows), np.nan) if at is None else model_values(at, rows, load_free)
        evaluations[0] += 1
        if progress is not None:
            progress(evaluations[0])
        return _weighted(rows, model)[fitted]

    from scipy.optimize import least_squares  # scipy only where a fit is made: `qmodel
    # scenario` reads this module (with_inferred_locks) and starts without it

    spans = high - low

    def pulled(x: np.ndarray) -> np.ndarray:  # the rows, and each parameter's pull to where it starts
        return np.concatenate([residuals(x), PULL * (x - x0) / spans])

    solution = least_squares(pulled, x0, bounds=(low, high), x_scale=np.ones_like(x0), diff_step=1e-4)
    x = np.array([p.to_scale(p.from_scale(v)) for p, v in zip(parameters, solution.x, strict=True)])
    jacobian = np.array(solution.jac, dtype=float)[: int(fitted.sum())]  # the rows' own
    at = trial(x)
    if at is None:
        raise InputError(
            "calibration",
            ", ".join(
                f"{p.key} {shown_value(p.key, p.from_scale(v))}" for p, v in zip(parameters, x, strict=True)
            ),
            "values the prepared rows can take",
            reason="the fit ended where they cannot be met",
        )
    model = model_values(at, rows, load_free)
    weighted = _weighted(rows, model)
    for i in np.flatnonzero(solution.active_mask):  # scipy gives 0 there: the slope into the bounds
        step = 1e-4 * max(1.0, abs(x[i]))
        step = -step if x[i] + step > high[i] else step
        moved = x.copy()
        moved[i] += step
        jacobian[:, i] = (residuals(moved) - weighted[fitted]) / step
    moved = moved_rows(jacobian)  # the rows the parameters move (the module docstring)
    scale = scale_factors(jacobian[moved], weighted[fitted][moved])
    covariance = np.linalg.pinv(jacobian.T @ jacobian) * np.outer(scale, scale)
    return Fit(parameters, x, covariance, rows, model, weighted, jacobian, at)


# The PDG's cut (Review of Particle Physics, Introduction, "Averages and fits"): a row whose share of a
# parameter's estimate is below PDG_CUT / n is left out of that parameter's scale factor
PDG_CUT = 1 / 9
_NOTHING_LEFT = 1e-9  # Σ u (1 − h) at or below this: no row is left over to check the parameter


def scale_factors(jacobian: np.ndarray, residuals: np.ndarray) -> np.ndarray:
    """(p,) each parameter's scale factor S_j ≥ 1 from the counted rows' Jacobian (n, p) and weighted
    residuals (n,): over the rows K_j whose share u_ji of the variance of parameter j's estimate is at
    least 1/(9 n) (the PDG's cut), S_j² = max(1, Σ_K u_ji ř_i² / Σ_K u_ji E[ř_i²]), ř = M r_K the kept rows'
    residuals from j estimated on them alone (M = I − c cᵀ / cᵀc, c row j of C = (JᵀJ)⁻¹Jᵀ on K_j: the
    others held where all rows put them) and E[ř_i²] = (M P_KK M)_ii what a correct model leaves there
    (P = I − J C); with no row cut, ř = r and E[ř_i²] = 1 − h_i. The module docstring: the PDG's scale
    factor, each row counted by its share. 1 where no row is left over to check the parameter (n ≤ p, or
    its rows K_j leave nothing over) or no row moves it."""
    jacobian = np.asarray(jacobian, float)
    residuals = np.asarray(residuals, float)
    n, p = jacobian.shape if jacobian.ndim == 2 else (0, 0)
    if n <= p or p == 0:
        return np.ones(p)
    gain = np.linalg.pinv(jacobian.T @ jacobian) @ jacobian.T  # (p, n): x̂ moves by gain @ r
    left_in = np.eye(n) - jacobian @ gain  # P: r = P × the rows' errors, E[r rᵀ] = P
    share = gain**2
    total = share.sum(axis=1, keepdims=True)
    share = np.divide(share, total, out=np.zeros_like(share), where=total > 0)
    squared = np.ones(p)
    for j in range(p):
        kept = share[j] >= PDG_CUT / n  # the PDG's cut; a row that does not move j has share 0
        own = gain[j, kept]
        if not kept.any() or not own @ own > 0:
            continue
        alone = np.eye(own.size) - np.outer(own, own) / (own @ own)  # M: j refitted on the kept rows
        room = share[j, kept] @ np.diag(alone @ left_in[np.ix_(kept, kept)] @ alone)
        if room > _NOTHING_LEFT:
            squared[j] = share[j, kept] @ (alone @ residuals[kept]) ** 2 / room
    return np.sqrt(np.maximum(1.0, squared))


_ROOM_STEPS = 40  # bisections of a bound the file's times refuse: to 10⁻¹² of the range on its scale


def within_times(scenario: Scenario, parameter: FreeParameter, start: float) -> FreeParameter:
    """``parameter`` with each bound the file's times measured at a distance refuse (a route longer than
    they are: :func:`qmodel.scenario.propagation.at_zero_km`, a crossing_latency or a fibre_speed) moved
    in to the last value they allow, by bisection on its fitted scale from ``start`` (SI, which they
    allow). The fit then stays where the model answers: past that bound every row is refused, and a
    Jacobian stepped across it took the jump for a slope (trial 9, Q1: crossing_latency "pinned" at the
    most the file's 40 km times allow, 156 us to 156 us, and every member's other held). As it is at
    measured_at 0, or where the start is refused."""

    def allowed(value: float) -> bool:
        try:
            at_zero_km(with_values(scenario, {parameter.key: value}))
        except InputError:
            return False
        return True

    if scenario.measured_at <= 0 or not allowed(start):
        return parameter

    def last_allowed(end: float) -> float:
        if allowed(end):
            return end
        inside, outside = parameter.to_scale(start), parameter.to_scale(end)
        for _ in range(_ROOM_STEPS):
            middle = (inside + outside) / 2
            inside, outside = (middle, outside) if allowed(parameter.from_scale(middle)) else (inside, middle)
        return parameter.from_scale(inside)

    return replace(parameter, low=last_allowed(parameter.low), high=last_allowed(parameter.high))


def calibrate_fit(
    scenario: Scenario,
    rows: Sequence[Measurement],
    free: Sequence[str | FreeParameter],
    *,
    prepare: Callable[[Scenario], Scenario] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Fit:
    """A calibration: :func:`fit_scenario`, then each parameter the rows do not pin (:meth:`Fit.unpinned`)
    held at its prior value (the scenario's: the file's, or the default) and the fit redone from the
    others' fitted values without it, until every parameter left is pinned by that test (the module
    docstring). Parameters as :func:`fit_scenario`; ``progress`` counts every fit's evaluations.

    :returns: the last :class:`Fit`, its ``held`` the parameters held, each with why.
    """
    parameters: tuple[FreeParameter, ...] = ()
    for given in free:
        parameters += (given,) if isinstance(given, FreeParameter) else free_parameters(scenario, [given])
    held: list[Held] = []
    start: dict[str, float] | None = None
    done, last = [0], [0]  # the evaluations of the fits before this one, and of this one so far

    def counted(evaluations: int) -> None:
        last[0] = evaluations
        if progress is not None:
            progress(done[0] + evaluations)

    while True:
        kept = {h.parameter.key for h in held}
        fitting = tuple(p for p in parameters if p.key not in kept)
        if not fitting:
            fit = _at_prior(scenario, rows, prepare)
            break
        fit = fit_scenario(scenario, rows, fitting, prepare=prepare, start=start, progress=counted)
        done[0] += last[0]
        loose = fit.unpinned()
        if not loose:
            break
        defaulted = {key.replace(" ", ".") for key, _ in scenario.defaults}
        held += [
            Held(p, current_value(scenario, p), loose[p.key], _prior_source(p.key, defaulted))
            for p in fitting
            if p.key in loose
        ]
        start = {key: value for key, value in fit.values.items() if key not in loose}
    return replace(fit, held=tuple(held))


def _prior_source(key: str, defaulted: set[str]) -> str:
    """Where a held parameter's prior value comes from: "the default" where the file leaves the key out."""
    return "the default" if key in defaulted else "the file's"


def _at_prior(
    scenario: Scenario, rows: Sequence[Measurement], prepare: Callable[[Scenario], Scenario] | None
) -> Fit:
    """The :class:`Fit` of no parameter: every row's model value at the scenario as it is (prepared)."""
    rows = tuple(rows)
    at = scenario if prepare is None else prepare(scenario)
    model = model_values(at, rows)
    fitted = int(sum(row.weight > 0 for row in rows))
    empty = np.empty(0)
    return Fit((), empty, np.zeros((0, 0)), rows, model, _weighted(rows, model), np.zeros((fitted, 0)), at)


# The work of a calibration, estimated before it starts (qmodel.limits). Least squares makes about
# ITERATIONS_PER_FIT iterations of p + 1 evaluations (a Jacobian by forward differences, and a step); each
# evaluation solves every run (rows of one subchannels, Metro Mirror and castout owner setting; distances
# go in one solve), and where lockable_items is inferred from a measured wait, refits it in about
# REFIT_SOLVES solves of the load alone (fit.lock_refit), after a first inference of INFERENCE_SOLVES.
# Where lockable_items is so refitted at every trial, it keeps the measured wait whatever the lock span,
# with which it trades: the span then moves the rows only through their growth with distance, and the
# calibrations measured held it and fitted the rest again (calibrate_fit) every time it was free (4 of
# 4), so a second fit of p - 1 parameters is counted there. The process's start (imports, the first
# solves) is counted as well. Measured (issue 32, trial 5's files: 2 to 4 members, 1 run, 4 to 50 rows,
# 3 to 7 parameters; whole process CPU, 2 to 3 runs a file interleaved, the machine loaded 2.5 to 5 on 2
# cores): 3 to 4.9 evaluations an iteration a parameter; an evaluation 10 ms and 10 ms a member, a refit
# solve 4 ms a member, the start 2.0 to 2.3 s. The estimate over each file's median: 1.05 to 1.43 on the
# four-member files (4.4 to 6.8 s), 1.10 on plexb2, b2r and b3 pooled (the same 170 solves, 3.0 to 5.2 s
# in 9 runs), 2.0 on fits of 2 s (the start weighs most); a file's runs spread +-20%, as wide as that.
ITERATIONS_PER_FIT = 4.5
REFIT_SOLVES = 3.5
INFERENCE_SOLVES = 25
SECONDS_PER_EVALUATION = 0.010  # the fit's own work at an evaluation and a solve's part no member sets
SECONDS_PER_MEMBER_EVALUATION = 0.010  # a solve of every row of one run, a member's part
SECONDS_PER_MEMBER_REFIT_SOLVE = 0.004  # a solve of the load alone (the load-free parts kept)
CALIBRATION_START = 2.2  # s


def calibration_evaluations(keys: Sequence[str], refit: bool) -> float:
    """Evaluations of the rows a calibration of the free parameters ``keys`` (one for each member's: the
    expanded keys) is estimated to make: :data:`ITERATIONS_PER_FIT` × (p + 1), and where lockable_items
    is refitted from a measured wait (``refit``) with ``locks.lock_span`` free, a second fit without the
    span, :data:`ITERATIONS_PER_FIT` × p (the comment above)."""
    p = len(keys)
    held = refit and "locks.lock_span" in keys and p > 1
    return ITERATIONS_PER_FIT * ((p + 1) + (p if held else 0))


def calibration_seconds(members: int, rows: Sequence[Measurement], keys: Sequence[str], refit: bool) -> float:
    """Estimated CPU seconds of a calibration of ``keys`` on ``rows`` for a scenario of ``members``
    members: :data:`CALIBRATION_START` + evaluations × runs × (:data:`SECONDS_PER_EVALUATION` + members ×
    :data:`SECONDS_PER_MEMBER_EVALUATION`) + members × (evaluations × :data:`REFIT_SOLVES` +
    :data:`INFERENCE_SOLVES`) × :data:`SECONDS_PER_MEMBER_REFIT_SOLVE` where ``refit``; evaluations by
    :func:`calibration_evaluations`."""
    evaluations = calibration_evaluations(keys, refit)
    runs = len({row.run for row in rows})
    solves = evaluations * runs * (SECONDS_PER_EVALUATION + members * SECONDS_PER_MEMBER_EVALUATION)
    refits = (
        (evaluations * REFIT_SOLVES + INFERENCE_SOLVES) * SECONDS_PER_MEMBER_REFIT_SOLVE if refit else 0.0
    )
    return CALIBRATION_START + solves + members * refits


def refuse_long_calibration(
    scenario: Scenario, rows: Sequence[Measurement], keys: Sequence[str], refit: bool
) -> float:
    """The estimated CPU seconds of a calibration (:func:`calibration_seconds`); an InputError before any
    work where it passes the limit (:mod:`qmodel.limits`), whose way out lists only what fits in it,
    each with its estimate: lockable_items stated in place of measured_wait (no refit), the free list
    without locks.lock_span, at most k of the free parameters, and rows from fewer runs.

    :param keys: the free parameters, one key for each member's (``member.NA1.other``).
    :param refit: whether lockable_items is inferred again at every trial (:func:`lock_refit`)."""
    members = len(scenario.members)
    seconds = calibration_seconds(members, rows, keys, refit)
    if seconds <= TIME_LIMIT:
        return seconds
    ways = []
    if refit:
        stated = calibration_seconds(members, rows, keys, False)
        if stated <= TIME_LIMIT:
            ways.append(
                "lockable_items stated in place of measured_wait, as qmodel scenario infers it "
                f"(about {duration(stated)})"
            )
        spanless = [key for key in keys if key != "locks.lock_span"]
        if (
            len(spanless) < len(keys)
            and (less := calibration_seconds(members, rows, spanless, refit)) <= TIME_LIMIT
        ):
            ways.append(f"locks.lock_span not free (about {duration(less)})")
    fitting = next(
        (
            k
            for k in range(len(keys) - 1, 0, -1)
            if calibration_seconds(members, rows, keys[:k], refit) <= TIME_LIMIT
        ),
        0,
    )
    if fitting:
        ways.append(
            f"free at most {fitting} parameters (--free KEY,KEY; member.*.KEY is one for each of the "
            f"{members} members)"
        )
    if len({row.run for row in rows}) > 1:
        ways.append("rows from fewer runs (one subchannels, metro_mirror and castout_owner setting)")
    way_out = ", or ".join(ways) or "a scenario with fewer members"
    refuse_too_large(0.0, seconds, f"calibration of {len(keys)} parameters", way_out)
    return seconds


def _weighted(rows: Sequence[Measurement], model: np.ndarray) -> np.ndarray:
    return np.array([weighted_residual(row, value) for row, value in zip(rows, model, strict=True)])


def method_words() -> str:
    """The fit's method in words, as a fit file's [fit] method records it, with each quantity's σ."""
    sigma = {quantity: row_sigma(quantity) for quantity in ("response_time", "throughput", "lock_contention")}
    return (
        "weighted least squares over every row (scipy least_squares, trust-region reflective, within "
        f"each parameter's bounds); weights 1/σ² by quantity (response {sigma['response_time']:.3g}, count "
        f"or throughput {sigma['throughput']:.3g}: the model's run-to-run spread; share 1 point, lock wait "
        f"{sigma['lock_contention']:.0%}) times the row's weight; each parameter pulled toward its start by "
        "1e-3 of a weighted residual per its whole range (a parameter no row moves stays where the file has "
        "it); intervals ± z standard errors from D(JᵀJ)⁻¹D, D each parameter's scale "
        "factor max(1, S_j), S_j the scatter of the rows that inform it (the PDG's, each row by its share), "
        "on the fitted scale (log for a count of lockable items or a shape)"
    )


def file_value(key: str, value: float) -> str:
    """A fitted value as a scenario file writes it (TOML): a count bare, a share in %, a time, speed or
    rate with its unit (the schema's), six significant digits."""
    unit = key_of(*_schema_key(key)).unit
    if unit == "1":
        return f"{value:.6g}"
    if unit == "ratio":
        return f'"{value * 100:.6g}%"'
    return f'"{value / UNITS[unit].to_si:.6g}{unit}"'


def fit_toml(fit: Fit, scenario: str, measurements: str) -> str:
    """The fit file's text: the fitted values in the scenario file's own tables, which the next reading of
    the file takes in place of its own (:func:`qmodel.scenario.files.with_fitted`), its [band]: the sigma
    points of the parameters the rows pin with their weights (:meth:`Fit.band_points`; the fit itself
    weighs the rest), a [[calibration]] record of each, and [fit]: the method, the covariance on the
    fitted scale and every row."""
    intervals, weak = fit.intervals(), fit.weak()
    top: list[str] = []
    tables: dict[str, list[str]] = {}
    for key, value in fit.values.items():
        parts = key.split(".")
        written = f"{parts[-1]} = {file_value(key, value)}"
        if len(parts) == 1:
            top.append(written)
        else:
            member = parts[0] == "member"
            heading = f"[[member]]\nname = {json.dumps(parts[1])}" if member else f"[{parts[0]}]"
            tables.setdefault(heading, []).append(written)
    lines = [
        f"# Written by qmodel scenario calibrate {scenario} {measurements}: the values fitted on its",
        f"# rows. qmodel scenario {scenario} takes them in place of the file's own (delete this file to",
        "# use those). The file itself is never written.",
        "",
        *top,
        "",
    ]
    for heading, values in tables.items():
        lines += [heading, *values, ""]
    unpinned = [key for key, reason in weak.items() if "the rows do not pin" in reason]
    held = [h.parameter.key for h in fit.held]  # the band says what it does with them (band.load_banded)
    points = fit.band_points()
    if points:
        varied = int((fit.null_loading() <= _NULL).sum())
        n = round(1 / (2 * points[0][1]))  # each point's weight 1/(2n), ±√n σ (predictive.sigma_points)
        rest = 1 - sum(weight for _, weight in points)
        method = (
            f"sigma points of the joint normal of the fit on {measurements} (qmodel scenario calibrate): "
            f"±√{n} standard errors along each principal axis of its covariance of {varied} "
            f"parameter{'' if varied == 1 else 's'}, weight 1/{2 * n} each, the fit itself the rest "
            f"({abs(round(rest, 3)):g}); a value past its bound put at the bound"
            + (f"; not in it: {', '.join(unpinned)} (the rows do not pin them)" if unpinned else "")
        )
        farthest = max(r.distance for r in fit.rows if r.weight > 0)  # m: beyond it the answer is predicted
        lines += [
            "[band]",
            f"method = {json.dumps(method, ensure_ascii=False)}",
            f'measured_at = "{farthest / 1e3:g}km"',
            # each weight rounded down to 12 decimals: the fit itself keeps the rest, never below 0
            "weights = [" + ", ".join(f"{np.floor(weight * 1e12) / 1e12:.12f}" for _, weight in points) + "]",
            "points = [",
        ]
        for point, _ in points:
            lines.append(
                "  { "
                + ", ".join(f"{json.dumps(key)} = {file_value(key, value)}" for key, value in point.items())
                + " },"
            )
        lines += ["]", ""]
    fitted_on = f"{_count(sum(r.weight > 0 for r in fit.rows), 'row')} of {measurements}"
    for p in fit.parameters:
        low, high = (file_value(p.key, end).strip('"') for end in intervals[p.key])
        flag = fit.label(p.key) if weak[p.key] else ""
        shown = file_value(p.key, fit.values[p.key]).strip('"')
        interval = f"{low} to {high} ({LEVEL:.0%})"
        lines += [
            "[[calibration]]",
            f"parameter = {json.dumps(p.key)}",
            f"fitted_on = {json.dumps(fitted_on)}",
            f"value = {json.dumps(shown)}",
            f"interval = {json.dumps(interval)}",
            f"flag = {json.dumps(flag)}",
            "",
        ]
    for h in fit.held:
        lines += [
            "[[calibration]]",
            f"parameter = {json.dumps(h.parameter.key)}",
            f"fitted_on = {json.dumps(fitted_on)}",
            f"value = {json.dumps(file_value(h.parameter.key, h.value).strip(chr(34)))}",
            'interval = ""',
            f"flag = {json.dumps(held_label(h))}",
            "",
        ]
    lines += [
        "[fit]",
        f"scenario = {json.dumps(scenario)}",
        f"measurements = {json.dumps(measurements)}",
        f"method = {json.dumps(method_words())}",
        f"rows = {len(fit.rows)}",
        f"degrees_of_freedom = {fit.dof}",
        "parameters = [" + ", ".join(json.dumps(p.key) for p in fit.parameters) + "]",
        "scale = [" + ", ".join('"log"' if p.log else '"linear"' for p in fit.parameters) + "]",
        "x = [" + ", ".join(f"{x:.12g}" for x in fit.x) + "]",
        "covariance = ["
        + ", ".join("[" + ", ".join(f"{c:.12g}" for c in row) + "]" for row in fit.covariance)
        + "]",
        "held = [" + ", ".join(json.dumps(key) for key in held) + "]",
        "distances_km = ["
        + ", ".join(f"{d / 1e3:.12g}" for d in sorted({r.distance for r in fit.rows if r.weight > 0}))
        + "]",
        "",
    ]
    for misfit in fit.misfits():
        lines += [
            "[[fit.misfit]]",
            f"member = {json.dumps(misfit.member)}",
            f"kind = {json.dumps(misfit.kind)}",
            f"spread = {misfit.spread:.6g}",
            f"rows = {misfit.rows}",
            f"row = {json.dumps(misfit.row)}",
            f"measured = {misfit.measured:.12g}",
            f"model = {'nan' if np.isnan(misfit.model) else f'{misfit.model:.12g}'}",
            "",
        ]
    for row, model, residual, counted in zip(fit.rows, fit.model, fit.residuals, fit.counted, strict=True):
        lines += [
            "[[fit.row]]",
            f"row = {json.dumps(row.label)}",
            f"source = {json.dumps(row.source)}",
            f"measured = {row.value:.12g}",
            f"model = {'nan' if np.isnan(model) else f'{model:.12g}'}",
            f"weighted_residual = {residual:.6g}",
            f"weight = {row.weight:g}",
            f"counted = {'true' if counted else 'false'}",
            "",
        ]
    return "\n".join(lines)


def held_label(held: Held) -> str:
    """How a held parameter is shown: its prior value and why the rows do not pin it (a fit that ran to
    a bound says so first: the bound is where the fit went, the prior what is kept)."""
    prior = f"held at its prior {shown_value(held.parameter.key, held.value)} ({held.source})"
    if held.reason.startswith("at its bound"):
        return f"the fit ran to {held.reason.removeprefix('at ')}: not pinned, so {prior}"
    return f"{prior}: {held.reason.removeprefix('not pinned: ')}"


class FitRecord(NamedTuple):
    """What a band takes from a scenario file's fit file besides its values (:func:`fit_record`): the
    members' ``misfits``, the keys the calibration ``held`` at their prior values and the ``distances``
    (m, ascending) its fitted rows were measured at."""

    misfits: tuple[Misfit, ...] = ()
    held: tuple[str, ...] = ()
    distances: tuple[float, ...] = ()


def fit_record(scenario_path: str | Path) -> FitRecord:
    """The [fit] record of the fit file beside ``scenario_path`` (:func:`fit_toml` writes it), empty where
    there is none; an InputError naming the fit file's key where a value is not one calibrate writes."""
    target = fit_path(scenario_path)
    if not target.is_file() or target == Path(scenario_path):
        return FitRecord()
    record = read_toml(target, what="fit").get("fit", {})
    found = []
    for index, entry in enumerate(record.get("misfit", []), 1):
        ok = (
            isinstance(entry, dict)
            and isinstance(entry.get("member"), str)
            and entry.get("kind") in ERROR_KINDS.values()
            and all(_number(entry.get(name)) for name in ("spread", "measured", "model"))
            and isinstance(entry.get("rows"), int)
            and isinstance(entry.get("row"), str)
            and entry["spread"] >= 0
        )
        if not ok:
            raise InputError(
                f"{target.name}: fit.misfit[{index}]",
                str(entry)[:80],
                "member, kind (response_time, throughput), spread >= 0, rows, row, measured, model as "
                f"qmodel scenario calibrate writes them (calibrate again, or delete {target.name})",
            )
        found.append(
            Misfit(
                entry["member"],
                entry["kind"],
                float(entry["spread"]),
                entry["rows"],
                entry["row"],
                float(entry["measured"]),
                float(entry["model"]),
            )
        )
    held = record.get("held", [])
    if not isinstance(held, list) or not all(isinstance(key, str) for key in held):
        raise InputError(f"{target.name}: fit.held", str(held)[:80], "a list of dotted keys")
    distances = record.get("distances_km", [])
    if not isinstance(distances, list) or not all(_number(d) and d >= 0 for d in distances):
        raise InputError(f"{target.name}: fit.distances_km", str(distances)[:80], "a list of distances in km")
    return FitRecord(tuple(found), tuple(held), tuple(sorted(float(d) * 1e3 for d in distances)))


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def write_fit(fit: Fit, scenario_path: Path, measurements: str) -> Path:
    """Write the fit file of the scenario file at ``scenario_path`` (:func:`fit_toml`), whole, beside it
    (:func:`qmodel.scenario.files.fit_path`): never over the scenario file or the measurements."""
    target = fit_path(scenario_path)
    if target.resolve() in (scenario_path.resolve(), Path(measurements).resolve()):
        raise InputError("output", str(target), "a file other than the scenario and its measurements")
    write_whole(target, fit_toml(fit, scenario_path.name, measurements))
    return target


LOCK_STARTS = np.geomspace(1e2, 1e8, 13)  # lockable_items tried for a start: the nearest the measured wait


def with_inferred_locks(scenario: Scenario, near: float | None = None) -> Scenario:
    """``scenario`` with ``lockable_items`` inferred from the lock contention it was measured to have
    (``[locks] measured_wait`` at ``measured_at``), where the file leaves lockable_items out: the fit of
    that one parameter on that one row (the row's σ, 20% of a class 3 suspension time, taken as known),
    found as the root of its residual (:func:`_inferred_locks`: the value and interval least squares,
    :func:`fit_scenario`, gives, in fewer solves), started at the nearest of :data:`LOCK_STARTS`, or at
    ``near`` where it is given (a band point's inference started from the answer's own: the same root,
    without the scan of the starts). Where the file has no [band], the answer's band is the inferred
    value's sigma points (:meth:`Fit.band_points`, ±√3 σ of its logarithm, weight 1/6 each); a
    [[calibration]] record says what it rests on. Other scenarios are returned as they are.
    InputError where no lockable_items gives the measured wait (more than the model has before it
    thrashes).

    :param scenario: a checked scenario (:func:`qmodel.scenario.spec.scenario_from_dict`).
    :returns: the scenario with lockable_items set (SI).
    """
    if scenario.lock_measurement is None or not np.isnan(scenario.lockable_items):
        return scenario
    if near is not None and np.isfinite(near):
        try:
            return _inferred_locks(scenario, np.array([near]))
        except InputError:
            pass  # not reached from there: the scan of the starts decides, and says why where it fails
    refuse_overloaded_today(scenario)  # a load no hot set explains named first: saturation, too long a wait
    return _inferred_locks(scenario, LOCK_STARTS)


def _inferred_locks(scenario: Scenario, starts: np.ndarray) -> Scenario:
    """:func:`with_inferred_locks` from the nearest of ``starts`` (their lock waits solved together,
    :func:`_lock_waits`): the root of the row's residual by
    :func:`_refit_items` (a few solves, no scipy), its interval from the slope there (:func:`_root_fit`,
    the same :class:`Fit` as least squares gives); least squares (:func:`fit_scenario`) where the
    steps do not reach a root, which finds the nearest the model gets."""
    measured = scenario.lock_measurement
    assert measured is not None, "a scenario with a measured lock wait"
    row = _lock_row(scenario)
    load_free = LoadFree()
    trials = list(_lock_waits([scenario], row.distance)(np.zeros(starts.size, dtype=int), starts))
    for items, wait in zip(starts, trials, strict=True):  # solved together: kept as model_values keeps them
        trial = replace(scenario, lockable_items=float(items))
        load_free.values[(row.run, *load_only_values(trial))] = np.array([wait])
    gaps = [abs(np.log(wait / measured.wait)) if wait > 0 else np.inf for wait in trials]
    if not np.isfinite(min(gaps)):
        raise InputError(
            "locks.measured_wait",
            f"{measured.wait * 1e3:g} ms",
            "a lock wait the model reaches before it thrashes",
            reason="no lockable_items gives it",
        )
    start = float(starts[int(np.argmin(gaps))])
    edge = refuse_unreached_wait(scenario, starts, trials, load_free)  # a wait only the thrashing edge nears
    start = start if edge is None else edge
    root = _refit_items(scenario, start, FIRST_SLOPE, load_free)
    if root is None:
        return _with_lock_fit(
            scenario, fit_scenario(replace(scenario, lockable_items=start), [row], ["locks.lockable_items"])
        )
    step = _root_step(scenario, root[0])
    model, moved = (  # the root itself as found (its solve kept in load_free), and a step from it
        model_values(replace(scenario, lockable_items=value), [row], load_free)
        for value in (root[0], step[3])
    )
    return _with_lock_fit(scenario, _root_fit(scenario, row, root[0], step, model, moved))


def _with_lock_fit(scenario: Scenario, fit: Fit) -> Scenario:
    """``scenario`` with the lockable_items of ``fit`` (its measured lock wait's), its band where the
    file has none (the value's sigma points) and the [[calibration]] record saying what it rests on;
    InputError where the fit does not meet the measured wait (the nearest the model gets)."""
    measured = scenario.lock_measurement
    assert measured is not None, "a scenario with a measured lock wait"
    value = fit.values["locks.lockable_items"]
    if abs(fit.residuals[0]) > 0.01:  # the nearest the model gets is not the measurement
        raise InputError(
            "locks.measured_wait",
            f"{measured.wait * 1e3:g} ms",
            f"a lock wait the model reaches (nearest: {fit.model[0] * 1e3:.3g} ms at "
            f"lockable_items {significant(value)})",
            reason="no lockable_items gives it",
        )
    low, high = fit.intervals()["locks.lockable_items"]
    said = (
        f"inferred from measured_wait {measured.wait * 1e3:g} ms at {measured.distance / 1e3:g} km "
        f"(σ {fit.rows[0].sigma:.0%} taken as known): {significant(value)}, 95% {significant(low)} to "
        f"{significant(high)}"
    )
    sigma = fit.band_points()  # its normal on the log scale, as a calibration's band takes a fit's
    band = scenario.band or BandSpec(
        f"lockable_items at the sigma points of its normal on a log scale (±√3 σ, weight 1/6 each), {said}",
        tuple(dict(point) for point, _ in sigma),
        tuple(weight for _, weight in sigma),
    )
    record = {"parameter": "locks.lockable_items", "fitted_on": said}
    return replace(scenario, lockable_items=value, band=band, calibration=(*scenario.calibration, record))


def with_inferred_locks_together(
    points: Sequence[Scenario], near: float | Sequence[float]
) -> tuple[Scenario, ...]:
    """:func:`with_inferred_locks` of each of ``points`` started at ``near`` (one value, or one per point:
    a band's points, each inferring its own hot set from its answer's), their steps taken together: each
    step of the secant (:func:`_secant_roots`) and the slope at the roots are one solve of every point
    still stepping (:func:`qmodel.scenario.compose.solved_together`, the points that share their
    load-free parts side by side) in place of one solve per point, with the same values. Points that differ
    only in what the inference does not read (their gamma shapes: :func:`_same_inference`) from the same
    start share one inference. A point with no lock wait at its start, whose steps do not reach the root,
    or measured at another distance than the first, is inferred alone (:func:`with_inferred_locks`: the
    scan of the starts, least squares, the errors)."""
    found = list(points)
    nears = np.broadcast_to(np.asarray(near, float), (len(points),))
    inferring = [
        i
        for i, point in enumerate(points)
        if point.lock_measurement is not None and np.isnan(point.lockable_items) and np.isfinite(nears[i])
    ]
    if not inferring:
        return tuple(
            with_inferred_locks(point, float(start)) for point, start in zip(points, nears, strict=True)
        )
    measured_at = _lock_row(points[inferring[0]]).distance
    inferring = [i for i in inferring if _lock_row(points[i]).distance == measured_at]
    first: list[int] = []  # the points whose inference is done, each standing for those alike
    stands: list[int] = []  # for each of inferring, its place in first
    for i in inferring:
        alike = (
            k for k, j in enumerate(first) if nears[j] == nears[i] and _same_inference(points[j], points[i])
        )
        place = next(alike, len(first))
        if place == len(first):
            first.append(i)
        stands.append(place)
    subset = [points[i] for i in first]
    waits = _lock_waits(subset, measured_at)

    def gap(index: np.ndarray, x: np.ndarray) -> np.ndarray:
        wait = waits(index, np.exp(x))
        measured = np.array([_lock_row(subset[j]).value for j in index])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(wait > 0, np.log(wait / measured), np.nan)

    x0 = np.log(nears[first])
    x, _, reached = _secant_roots(gap, x0, gap(np.arange(len(subset)), x0), np.full(len(subset), FIRST_SLOPE))
    roots = np.flatnonzero(reached)
    items = [float(value) for value in np.exp(x[roots])]
    steps = [_root_step(subset[j], value) for j, value in zip(roots, items, strict=True)]
    both = waits(np.concatenate([roots, roots]), np.array([*items, *(step[3] for step in steps)]))
    fits = {
        j: _root_fit(
            subset[j], _lock_row(subset[j]), items[k], steps[k], both[k : k + 1], both[roots.size + k :][:1]
        )
        for k, j in enumerate(roots.tolist())
    }
    done = set()
    for i, place in zip(inferring, stands, strict=True):
        try:
            found[i] = _with_lock_fit(points[i], fits[place])
            done.add(i)
        except (KeyError, InputError):  # not reached, or the nearest the model gets: alone, which says so
            pass
    return tuple(
        point if i in done else with_inferred_locks(point, float(nears[i])) for i, point in enumerate(found)
    )


def _same_inference(one: Scenario, other: Scenario) -> bool:
    """True where ``one`` and ``other`` infer the same hot set from their measured lock waits: the same
    load-free parts (:func:`qmodel.scenario.compose.same_load_free`, which holds the measurement alike)
    and the same values the lock fixed point reads besides lockable_items
    (:func:`qmodel.scenario.compose.solved_values`): they differ at most in their gamma shapes."""
    # lockable_items: NaN in both, left out of the comparison
    return same_load_free(one, other) and solved_values(replace(one, lockable_items=0.0)) == solved_values(
        replace(other, lockable_items=0.0)
    )


def _lock_waits(
    points: Sequence[Scenario], distance: float
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A function of (indices into ``points``, their lockable_items) giving each one's model lock wait
    (s, the members' throughput-weighted mean, as a measured row of "all" reads it: :func:`model_values`;
    NaN where it thrashes) at ``distance`` (m): the points that share their load-free parts solved in one
    fixed point, those parts computed once for every call."""
    at = np.array([distance])
    groups = load_free_groups(points, at)

    def waits(index: np.ndarray, items: np.ndarray) -> np.ndarray:
        found = np.full(index.size, np.nan)
        for group, parts in groups:
            picked = np.flatnonzero(np.isin(index, group))
            if not picked.size:
                continue
            trials = [replace(points[index[k]], lockable_items=float(items[k])) for k in picked]
            solved = solved_together(trials, at, parts)
            weights = np.where(solved.thrashing[None, :], np.nan, solved.loaded.throughput)
            found[picked] = throughput_weighted(weights, solved.loaded.lock_wait)
        return found

    return waits


_DIFF_STEP = 1e-4  # the forward difference of a Jacobian column: this × max(1, |x|) (least_squares' rule)


def _root_step(scenario: Scenario, items: float) -> tuple[FreeParameter, float, float, float]:
    """Where the slope at a root ``items`` of lockable_items is read (:func:`_root_fit`): the parameter, its
    value x on the fitted scale (log), the step (:data:`_DIFF_STEP`, inward at the upper bound) and the
    lockable_items a step away."""
    (parameter,) = free_parameters(replace(scenario, lockable_items=items), ["locks.lockable_items"])
    x = parameter.to_scale(items)
    step = _DIFF_STEP * max(1.0, abs(x))
    step = -step if x + step > parameter.to_scale(parameter.high) else step
    return parameter, x, step, parameter.from_scale(x + step)


def _root_fit(
    scenario: Scenario,
    row: Measurement,
    items: float,
    step: tuple[FreeParameter, float, float, float],
    model: np.ndarray,
    moved: np.ndarray,
) -> Fit:
    """The :class:`Fit` of lockable_items alone on ``row`` at its root ``items``, as :func:`fit_scenario`
    forms it: the weighted residual there (``model``, the row's model value at the root) and its slope on
    the fitted scale (log) by a forward difference (``step``, :func:`_root_step`; ``moved``, the row's
    value a step away)."""
    parameter, x, width, _ = step
    weighted, shifted = _weighted([row], model), _weighted([row], moved)
    jacobian = ((shifted - weighted) / width)[:, None]
    covariance = np.linalg.pinv(jacobian.T @ jacobian)  # no row left over: the row's σ taken as known
    at = replace(scenario, lockable_items=items)
    return Fit((parameter,), np.array([x]), covariance, (row,), model, weighted, jacobian, at)


_SECANT_STEPS = 8  # secant steps of a warm-started refit of lockable_items before the full inference
# The first step's slope of log(lock wait) on log(lockable_items): the wait is the locks held over the
# hot set (qmodel.studies.locks.lock_wait), so −1 to first order (the load it sheds moves it a little)
FIRST_SLOPE = -1.0
_SECANT_TOLERANCE = 1e-10  # |log(model wait / measured wait)| at which the refit stops


def _lock_row(scenario: Scenario) -> Measurement:
    """The file's measured lock contention as a row (:func:`with_inferred_locks`)."""
    measured = scenario.lock_measurement
    assert measured is not None
    return Measurement(
        scenario.title,
        "all",
        measured.distance,
        "lock_contention",
        measured.wait,
        source="[locks] measured_wait",
    )


def _refit_items(
    scenario: Scenario, start: float, slope: float, load_free: LoadFree | None = None
) -> tuple[float, float] | None:
    """(lockable_items, slope) near ``start`` whose model lock wait is the file's measured one
    (:func:`_secant_roots` from ``start`` with the last refit's ``slope``, one solve a step); None where
    the steps do not get there (the caller then infers it afresh, :func:`with_inferred_locks`).
    ``load_free``: the scenario's load-free parts where the caller has them (:func:`model_values`)."""
    row = _lock_row(scenario)
    load_free = LoadFree() if load_free is None else load_free

    def gap(index: np.ndarray, x: np.ndarray) -> np.ndarray:
        wait = model_values(replace(scenario, lockable_items=float(np.exp(x[0]))), [row], load_free)[0]
        return np.array([np.log(wait / row.value) if wait > 0 else np.nan])

    x0 = np.array([np.log(start)])
    x, found_slope, reached = _secant_roots(gap, x0, gap(np.arange(1), x0), np.array([slope]))
    return (float(np.exp(x[0])), float(found_slope[0])) if reached[0] else None


def _secant_roots(
    gap: Callable[[np.ndarray, np.ndarray], np.ndarray], x0: np.ndarray, g0: np.ndarray, slope: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per element, the root of g(x) = log(model wait / measured wait), x = log lockable_items, from
    ``x0`` with g0 = g(x0): a Newton step with ``slope`` dg/dx (a step of 0.01 where it is 0), then
    secant steps, until |g| < 1e-10 (:data:`_SECANT_TOLERANCE`), at most :data:`_SECANT_STEPS` of them,
    x kept within [0, log 10⁹]; each step one call of ``gap(indices, x)`` for the elements still stepping.
    Returns (x, the slope there, reached): reached False where g0 or the slope is not finite, a step
    gives no lock wait or does not move g, or the steps run out."""
    size = x0.size
    x_root, slope_root, reached = np.full(size, np.nan), np.full(size, np.nan), np.zeros(size, dtype=bool)
    usable = np.isfinite(g0) & np.isfinite(slope)
    done = usable & (np.abs(g0) < _SECANT_TOLERANCE)
    x_root[done], slope_root[done], reached[done] = x0[done], slope[done], True
    active = np.flatnonzero(usable & ~done)
    x0, g0, slope = x0[active], g0[active], slope[active]
    newton = np.clip(x0 - g0 / np.where(slope == 0, 1.0, slope), 0.0, np.log(1e9))
    x1 = np.where(slope == 0, x0 + 0.01, newton)
    g1 = gap(active, x1) if active.size else x1
    for _ in range(_SECANT_STEPS):
        stepping = np.isfinite(g0) & np.isfinite(g1) & (g1 != g0)
        with np.errstate(invalid="ignore", divide="ignore"):
            slope = (g1 - g0) / (x1 - x0)
        found = stepping & (np.abs(g1) < _SECANT_TOLERANCE)
        x_root[active[found]], slope_root[active[found]], reached[active[found]] = (
            x1[found],
            slope[found],
            True,
        )
        keep = stepping & ~found
        active, x0, x1, g1, slope = active[keep], x0[keep], x1[keep], g1[keep], slope[keep]
        if not active.size:
            break
        x0, x1 = x1, np.clip(x1 - g1 / slope, 0.0, np.log(1e9))
        g0, g1 = g1, gap(active, x1)
    return x_root, slope_root, reached


_EDGE_TOLERANCE = 1e-3  # log lockable_items: the thrashing edge bracketed this close (0.1%)


def refuse_unreached_wait(
    scenario: Scenario, starts: np.ndarray, waits: Sequence[float], load_free: LoadFree | None = None
) -> float | None:
    """Where the file's measured lock wait is above every wait the scan of ``starts`` (lockable_items,
    ascending) gave (``waits``, s, NaN where the model thrashes) and the start just below the one with the
    largest wait thrashes, the edge between them is bisected on log lockable_items (one solve a step, at
    most about 11 for a factor of 3.2 between the starts, :data:`_EDGE_TOLERANCE`): the lockable_items of
    the first wait found at or above the measured one is returned (a start whose secant steps reach the
    root); where none is found before the bracket is that narrow, ScenarioError naming the file, the wait
    and the most the model reaches (the largest wait found, and its lockable_items: fewer items thrash),
    in place of a least-squares search over the thrashing edge, whose solves there slow to a second each.
    None where the scan does not leave the edge to search (a wait at or above the measured one, or no
    thrashing start below).

    :param load_free: the scan's load-free parts (:func:`model_values`), where the caller has them."""
    measured = scenario.lock_measurement
    assert measured is not None, "a scenario with a measured lock wait"
    finite = [i for i, wait in enumerate(waits) if np.isfinite(wait) and wait > 0]
    if not finite:
        return None
    first = min(finite)  # the fewest lockable_items that do not thrash: the largest wait
    if waits[first] >= measured.wait or first == 0 or np.isfinite(waits[first - 1]):
        return None
    row, load_free = _lock_row(scenario), LoadFree() if load_free is None else load_free
    low, high = float(np.log(starts[first - 1])), float(np.log(starts[first]))
    best = (float(waits[first]), float(starts[first]))
    while high - low > _EDGE_TOLERANCE:
        middle = (low + high) / 2
        wait = model_values(replace(scenario, lockable_items=float(np.exp(middle))), [row], load_free)[0]
        if not np.isfinite(wait):
            low = middle
        elif wait >= measured.wait:
            return float(np.exp(middle))
        else:
            high, best = middle, (float(wait), float(np.exp(middle)))
    raise ScenarioError(
        scenario.where,
        "locks.measured_wait",
        f"{measured.wait * 1e3:.4g} ms",
        f"at most about {best[0] * 1e3:.3g} ms, the largest lock wait the model reaches at "
        f"{measured.distance / 1e3:g} km (at lockable_items {significant(best[1])}; fewer thrash, and the "
        "wait rises steeply just before)",
        reason="no lockable_items gives it: more than the model has before it thrashes",
    )


def lock_refit(scenario: Scenario, free: Sequence[str]) -> LockRefit | None:
    """Where ``scenario`` infers lockable_items from its measured lock contention and the fit does not
    free lockable_items itself, the ``prepare`` of :func:`fit_scenario` that infers it again at every
    trial (:class:`LockRefit`: a trial's lock span or other times change what hot set gives the measured
    wait); else None. ``scenario`` as the file has it (lockable_items NaN where it is inferred)."""
    if (
        scenario.lock_measurement is None
        or not np.isnan(scenario.lockable_items)
        or any(key == "locks.lockable_items" for key in free)
    ):
        return None
    return LockRefit(LoadFree() if all(load_only(key) for key in free) else None)


@dataclass
class LockRefit:
    """The ``prepare`` of :func:`fit_scenario` that infers lockable_items again at every trial
    (:func:`lock_refit`), starting from the last trial's value (:func:`_refit_items`: two to four solves
    where a fit's trials lie close), afresh (:func:`with_inferred_locks`) only where that does not
    converge. It changes lockable_items alone, a key the load-free parts do not read, so where the fit's
    free keys are all :func:`load_only` too (``load_free`` given) the trials' load-free parts are computed
    once, for its own solves and the fit's (:func:`fit_scenario`)."""

    load_free: LoadFree | None = None
    last: list[tuple[float, float]] = field(default_factory=list)  # the last trial's (items, slope)

    def __call__(self, trial: Scenario) -> Scenario:
        refit = _refit_items(trial, *self.last[-1], self.load_free) if self.last else None
        if refit is None:
            refit = (with_inferred_locks(replace(trial, lockable_items=np.nan)).lockable_items, 0.0)
        self.last[:] = [refit]
        return replace(trial, lockable_items=refit[0])
