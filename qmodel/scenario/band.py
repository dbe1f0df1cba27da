"""A band at a stated level on every scenario answer (docs/background/cross-validation.md, "The band").

The answer's predictive distribution has two parts, sampled jointly (:mod:`qmodel.scenario.predictive`),
the second widened by a third:

- **the parameters**, as the file's [band] gives them: points (the sigma points of a fit's joint normal,
  each member's 0 km fits redone at each, the file's ``weights``) with the scenario itself weighing the
  rest. A file without [band] has measured nothing that pins its lock parameters: it takes the range the
  studies support for them (:data:`MODEL_FILE`'s ``studies_range``, log-uniform, :data:`RANGE_NODES`
  equal-weight nodes), and its answer names the measurement that would narrow the band most; so does
  a lock parameter a calibration held at its prior (the rows did not pin it), taken as independent of
  the fit: each of the fit's points (and the scenario itself) at each of its nodes, as a default that
  is an estimate is taken (:func:`load_banded`);
- **the model's own error** on the part of the answer the model predicts: each value y less its value at
  the configuration the file was measured and fitted at ([band] ``measured_at``; none: all of it is
  predicted), normal with variance (σ·y)² + (q·g)², σ and q by kind sized by cross-validation across the
  study's environments (:data:`MODEL_FILE`, written by ``qmodel scenario cross-validate --write``);
- **a calibration's misfit**, where the file's values come from ``qmodel scenario calibrate``: each
  member's root-mean-square miss μ on the fit's rows of a kind, (measured − model) / model
  (:func:`qmodel.scenario.fit.misfits`), is evidence about σ for this file: its part beyond a run's
  scatter, e = √max(0, μ² − σ²), is added in quadrature at every distance, variance (σ·y)² + (e·y)² +
  (q·g)², so the run-to-run part becomes max(σ, μ); each member with μ above σ is named in one line.

The band is the central ``level`` interval of that distribution: a member's response time, throughput
and CPU directly, its share within the goal at the ends of its mean response time (the share falls as
the mean grows); "all" the members' ends weighted by their throughput (one error for every member: the
members' values move together, and the quantile of such a sum is the sum of the quantiles). The
breakdown's parts carry the parameter points' spread only: no measured row gives a part. A parameter
point is solved at up to :data:`GRID` of the distances asked (its difference from the answer
interpolated linearly between them), so a sweep of 1,000 distances costs one full solve and a few small
ones. The probability that the goal holds at a distance is the weight of the samples in which every
member's mean is at most the longest that meets the goal (:func:`qmodel.scenario.predictive.critical_mean`).
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import replace
from pathlib import Path
from statistics import NormalDist
from typing import NamedTuple

import numpy as np

from qmodel import frames
from qmodel.errors import InputError
from qmodel.frames import level_text
from qmodel.limits import refuse_scenario_work, refuse_too_large
from qmodel.scenario.compose import (
    EVALUATIONS,
    load_free_groups,
    load_free_indices,
    refuse_huge,
    refuse_uncarried_background,
    response_times_together,
    solve_cost,
    solve_scenario,
    solve_scenarios_together,
    solved_alike,
    workload,
)
from qmodel.scenario.fit import (
    FitRecord,
    Misfit,
    current_value,
    fit_record,
    free_parameters,
    shown_value_of,
    with_inferred_locks,
    with_inferred_locks_together,
)
from qmodel.scenario.goal import TOLERANCE, GoalSeek, max_distance
from qmodel.scenario.measurements import row_sigma
from qmodel.scenario.modelerror import model_error
from qmodel.scenario.overrides import KEY_FORMS, Column, apply_override, first_refused, override_column
from qmodel.scenario.predictive import (
    LEVEL,
    ModelError,
    Z,
    critical_mean,
    critical_ratio,
    ends,
    quantiles,
    samples,
    share_within,
)
from qmodel.scenario.propagation import at_zero_km
from qmodel.scenario.result import BREAKDOWN, NO_BAND, Band, ScenarioResult
from qmodel.scenario.schema import SCENARIO_KEYS
from qmodel.scenario.spec import Scenario, ScenarioError, read_scenario_toml, scenario_from_dict
from qmodel.units import bare_number, parse_value, with_unit

POINT_KEYS = KEY_FORMS.replace("distance, ", "")  # a point moves parameters, never the distances asked
GRID = 33  # at most this many of the distances asked solve each parameter point
SEEK_GRID = 49  # distances from 0 to the search's end that the goal seek's band solves each point at
SEEK_FIRST = 2.0  # of them, first those up to this many times the answer (the rest where still needed)
# a run's own scatter about a closed member's throughput: ±1 σ, equal weights
RUN_NODES = np.array([-1.0, 1.0])
RANGE_NODES = 4  # nodes of a range the studies support (log-uniform: equal weights)
ROOM_TOLERANCE = 0.01  # in the estimate's unit (µs): how closely the room the file's times leave is found
# what narrows a band most, by its largest part; {at}: the distance measured (one), {farthest}: the farthest
# of the distances measured (two or more: then the "_beyond" form), {distances}: all of them (narrowing)
NARROW = {
    "range": "the lock contention measured at today's distance (DB2 accounting class 3: lock/latch and "
    "global contention suspension per transaction) would pin the lock parameters, which now take "
    "the whole range the studies support",
    "unmeasured": "each member's response time and transaction count measured at today's distance would fit "
    "its other and think time (qmodel scenario calibrate): no value of this file is fitted to a measured "
    "response time, so all of each answer is predicted",
    "unmeasured_open": "each member's response time measured at today's distance would fit its other "
    "(qmodel scenario calibrate): no value of this file is fitted to a measured response time, so all "
    "of each answer is predicted",
    "growth": "response times measured at a second distance besides {at} would fit the lock parameters on "
    "this sysplex's own growth (qmodel scenario calibrate), where the model's error on the growth is now "
    "the largest part of the band",
    "growth_beyond": "response times measured farther out than {farthest} would fit the growth beyond the "
    "distances measured (qmodel scenario calibrate), where the model's error on what it predicts past "
    "them is now the largest part of the band",
    "fit": "more rows in the fit (the same rows over more intervals at {distances}) would narrow its "
    "parameters' interval, now the largest part of the band",
    "measured_wait": "response times measured at a second distance besides {at} would fit the lock "
    "parameters on this sysplex's own growth (qmodel scenario calibrate): the hot set now rests on one "
    "measured lock wait, and its 95% interval is the largest part of the band",
    "measured_wait_beyond": "the lock contention measured over more intervals, as rows of a calibration "
    "with locks.lockable_items free (qmodel scenario calibrate), would narrow the hot set: it now rests on "
    "one measured lock wait, and its 95% interval is the largest part of the band",
    "crossing_latency": "a round trip between the sites measured at today's distance (RMF CF activity "
    "report, path data: channel path latency, SMF 74.4 R744HLAT; less 2 × distance / fibre_speed) would "
    "give crossing_latency, which now takes the whole 95% interval of the GDPS study's estimate",
    "distribution.shape": "each member's share within the goal measured at today's distance (RMF workload "
    "activity: the response time distribution's share below the goal time), with member.NAME.shape free "
    "(qmodel scenario calibrate), would fit its shape, which now takes the range the GDPS study's members "
    "give (the default 1, exponential, is an assumption)",
    "crossing_latency_before": "the latency of the route planned between the sites, before the move (the "
    "DWDM or carrier's specified latency per round trip, or a round trip over a test link: RMF CF activity "
    "report, path data, SMF 74.4 R744HLAT; less 2 × distance / fibre_speed) would give crossing_latency, "
    "which now takes the whole 95% interval of the GDPS study's estimate: the sites are side by side today "
    "(measured at 0 km), so no round trip between them can be measured yet",
}


class Banded(NamedTuple):
    """A scenario with what its band is made of: its parameter ``points`` and their ``weights`` (the
    scenario's own answer weighs the rest), the distance it was measured and fitted at (``measured_at``,
    m; None: nothing measured), the model's own ``error``, whether the points come from a fit of the
    file's own measurements (``pinned``) or from the range the studies support, and ``method``, what the
    points are, in words."""

    scenario: Scenario
    points: tuple[Scenario, ...] = ()
    weights: tuple[float, ...] = ()
    measured_at: float | None = None
    error: ModelError = ModelError()
    pinned: bool = True
    method: str = ""
    misfits: tuple[Misfit, ...] = ()
    ranged: tuple[str, ...] = ()  # each point's source: "fit" (a [band] point), or the key it ranges
    combination: tuple[tuple[int, ...], ...] = ()  # each point's node of each key in ``varied``
    varied: tuple[str, ...] = ()  # the keys taken at nodes, the rest at each (load_banded: the product)
    fitted_at: tuple[float, ...] = ()  # m: the distances of a calibration's fitted rows (FitRecord)

    def excess(self, kind: str) -> np.ndarray:
        """(M,) each member's misfit beyond a run's scatter, relative: e = √max(0, μ² − σ²), μ its
        calibration's misfit of ``kind`` (:class:`qmodel.scenario.fit.Misfit`; 0 where none), σ the
        model's run-to-run spread of that kind."""
        sigma = self.error.spread.get(kind, 0.0)
        spread = {m.member: m.spread for m in self.misfits if m.kind == kind}
        mu = np.array([spread.get(member.name, 0.0) for member in self.scenario.members])
        return np.sqrt(np.clip(mu**2 - sigma**2, 0.0, None))

    def sd(self, kind: str, value: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """The standard deviation of the answer's error for values (S, M, D) of ``kind`` with their
        predicted parts: the model's own (:meth:`ModelError.sd`) and each member's calibration misfit
        beyond a run's scatter (:meth:`excess`) at every distance, in quadrature."""
        own = self.error.sd(kind, value, predicted)
        excess = self.excess(kind)
        if not excess.any():
            return own
        return np.hypot(own, excess[:, None] * np.asarray(value, float))

    def misfit_words(self) -> str:
        """One line for the members whose calibration misfit passes a run's scatter (the band carries it,
        :meth:`sd`): the row missed most, how far off, and the σ the member's band now carries; "" if
        none."""
        said = []
        for misfit in self.misfits:
            sigma = self.error.spread.get(misfit.kind, 0.0)
            if misfit.spread <= sigma:
                continue
            quantity = "response_time" if misfit.kind == "response_time" else "throughput"
            model = "no answer" if np.isnan(misfit.model) else shown_value_of(quantity, misfit.model)
            measured = shown_value_of(quantity, misfit.measured)
            off = "" if np.isnan(misfit.model) else f" {misfit.off:+.0%}"
            what = "response time"
            if misfit.kind != "response_time":  # a closed member's throughput: scatter about X = N/(Z+R)
                closed = not self.scenario.member(misfit.member).open
                what = "throughput about N/(Z + R) and CPU" if closed else "throughput and CPU"
            # as many decimals as show the two apart (trial 9, Q8: "1.0% in place of a run's 1.0%")
            digits = next((d for d in (1, 2, 3) if f"{misfit.spread:.{d}%}" != f"{sigma:.{d}%}"), 3)
            said.append(
                f"{misfit.row} is off{off} (measured {measured}, the model {model}): {misfit.member}'s band "
                f"carries the miss, σ {misfit.spread:.{digits}%} of its {what} in place of a run's "
                f"{sigma:.{digits}%}"
            )
        return f"The calibration missed its rows: {'; '.join(said)}." if said else ""

    @property
    def has_band(self) -> bool:
        """A band can be given: the model's error is sized, or the parameters have points."""
        return bool(self.points) or bool(self.error.spread)

    def all_weights(self) -> np.ndarray:
        """The scenario's own weight, then each point's."""
        return np.array([1 - sum(self.weights), *self.weights])


def load_banded(path: str | Path) -> Banded:
    """Read and check a scenario file and what its band is made of: its [band]'s points
    (:func:`band_points`), or without one the range the studies support (:func:`range_points`); each
    at every node of the defaults it takes that are estimates (:func:`estimated_defaults`) and of the
    lock parameters a calibration held at its prior (:func:`_varied_nodes`).

    Such a default or held key is taken as independent of what the rest of the band is made of, so the
    band is their product: every point (and the scenario itself) at each combination of nodes, its weight
    shared equally among the combinations. Each source keeps its own variance (a share of the weight
    would shrink the rest).

    :param path: the scenario file (TOML), or a shipped scenario's name.
    :returns: :class:`Banded`: the scenario, its band's points and weights, the model's own error.
    """
    raw = read_scenario_toml(path)
    where = Path(path).name
    scenario = with_inferred_locks(scenario_from_dict(raw, where))  # lockable_items from measured_wait
    error, studies = model_error()
    record = fit_record(path)
    band = scenario.band
    # a lock parameter the calibration held at its prior: the range the studies support (with no [band],
    # that range is the band already)
    held = {key: studies[key] for key in record.held if key in studies} if band is not None else {}
    varied, nodes, ruled_out = _varied_nodes(raw, scenario, where, held)
    points: list[Scenario] = []
    weights: list[float] = []
    moved: list[str] = []
    combination: list[tuple[int, ...]] = []
    listed = nodes or [(raw, scenario, ())]
    found = [_parameters(data, at, where, studies, record) for data, at, _ in listed]
    # each node's points infer their hot sets from a measured wait, started at that node's answer's: every
    # node's together
    starts = [at.lockable_items for (_, at, _), (more, *_) in zip(listed, found, strict=True) for _ in more]
    inferred = iter(with_inferred_locks_together([point for more, *_ in found for point in more], starts))
    for (_, at, index), (more, more_weights, more_moved, _) in zip(listed, found, strict=True):
        more = tuple(next(inferred) for _ in more)
        centre = 1 - sum(more_weights)  # the scenario's own weight in the rest of the band (none: a range)
        # without nodes: the answer; its source, the fit's where it has one, else the key it ranges
        itself = "fit" if at.band is not None or not more_moved else more_moved[0]
        kept = ((at, centre, itself),) if nodes and centre > 1e-12 else ()
        for point, weight, source in (*kept, *zip(more, more_weights, more_moved, strict=True)):
            points.append(point)
            weights.append(weight / max(len(nodes), 1))
            moved.append(source)
            combination.append(index)
    method = found[-1][3]  # the words of the band's points: alike at every node
    if nodes:
        said = "; ".join(f"{key} {words}" for key, _, words in varied)
        itself = "the scenario itself and " if band is not None else ""
        method = (
            f"{method + '; ' if method else ''}{itself}each of these at {len(nodes)} nodes of {said}, "
            "equal shares (taken as independent of the rest)"
        )
    elif ruled_out:
        method = f"{method + '; ' if method else ''}{ruled_out}"
    return Banded(
        scenario,
        tuple(points),
        tuple(weights),
        None if band is None else band.measured_at,
        error,
        band is not None,
        method,
        record.misfits,
        tuple(moved),
        tuple(combination) if nodes else (),
        tuple(key for key, _, _ in varied) if nodes else (),
        record.distances,
    )


def _varied_nodes(
    raw: dict, scenario: Scenario, where: str, held: dict[str, tuple[float, float]], estimates: bool = True
) -> tuple[list[tuple[str, tuple, str]], list[tuple[dict, Scenario, tuple[int, ...]]], str]:
    """The keys the band takes at nodes, each independent of the rest: the defaults ``scenario`` takes
    that are estimates (:func:`estimated_defaults`, each clipped to the room the file's own times leave
    it, :func:`within_room`; none where ``estimates`` is False), and the keys a
    calibration held at its prior (``held``: the range the studies support, widened to reach the prior
    where it lies outside (:func:`supported_range`), at :data:`RANGE_NODES` log-uniform nodes, and the
    prior itself one more node), each as (key, its nodes, words); and every
    combination of their nodes as (the file's tables with the nodes set, the scenario there, its hot set
    inferred from a measured lock wait, each key's node). Where a node of an estimate still contradicts
    the file (its times read at a distance, or a measured lock wait), the estimates are not sampled (the
    answer stands), and the words say why."""
    found = estimated_defaults(scenario) if estimates else []
    varied: list[tuple[str, tuple, str]] = [
        (e.key, e.nodes(), e.words()) for e in (within_room(raw, where, estimate) for estimate in found)
    ]
    for key, studied in held.items():
        prior = _stated(scenario, key)
        low, high, words = supported_range(studied, prior)
        varied.append(
            (
                key,
                (*log_uniform_nodes(low, high), prior),
                f"held at its prior by the calibration (the rows do not pin it): the range the studies "
                f"support, {words}, {RANGE_NODES} log-uniform nodes and the prior, equal weights",
            )
        )
    wait = measured_wait_nodes(scenario)
    if wait is not None:
        varied.append(wait)
    if not varied:
        return [], [], ""
    indices = list(itertools.product(*(range(len(values)) for _, values, _ in varied)))
    tables = []
    for index in indices:
        data = copy.deepcopy(raw)
        for (key, values, _), node in zip(varied, index, strict=True):
            apply_override(data, _column(raw, key, where, 0), values[node])
        tables.append(data)
    try:
        # a measured lock wait gives each node its own hot set (a node that moves the round trip moves what
        # the same wait implies), inferred from the answer's own, every node's together
        ats = [scenario_from_dict(data, where) for data in tables]
        for at in ats:
            at_zero_km(at)  # the file's times read at a distance: refused here where a node contradicts them
        inferred = with_inferred_locks_together(ats, scenario.lockable_items)
        return varied, list(zip(tables, inferred, indices, strict=True)), ""
    except (InputError, ScenarioError) as refused:  # the file rules an estimate's node out: the first that
        if not estimates:  # does, named (found one at a time, below)
            raise
        together = refused
    for data, index in zip(tables, indices, strict=True):
        try:
            at = scenario_from_dict(data, where)
            at_zero_km(at)
            with_inferred_locks(at, scenario.lockable_items)
        except (InputError, ScenarioError) as refused:
            named = ", ".join(
                f"{key} {values[node]}"
                for (key, values, _), node in zip(varied, index, strict=False)
                if key not in held
            )
            kept, combinations, _ = _varied_nodes(raw, scenario, where, held, estimates=False)
            return (
                kept,
                combinations,
                (
                    f"not varied: {named}, a node of the default's interval, would contradict the file "
                    f"({_refusal_words(refused)}), so the default's interval is not sampled"
                ),
            )
    raise together  # each node alone went through: the refusal together stands as it was


def measured_wait_nodes(scenario: Scenario) -> tuple[str, tuple[str, str], str] | None:
    """A measured lock wait's own uncertainty, where a [band] (a calibration's, or the file's) takes the
    place of the band its inference gives (:func:`qmodel.scenario.fit.with_inferred_locks`: lockable_items
    at the sigma points of the wait's σ, used only where the file has no [band]), so that the band's points
    re-infer their hot sets from the wait as measured and its σ would otherwise not be sampled (trial 7,
    N3: a calibrated file's lock contention band at 40 km went from 5.9–12.1 ms to 7.9–8.4 ms though no
    row measured it): ``locks.measured_wait`` at the two nodes of the Gauss–Hermite rule on a log scale,
    wait × exp(∓σ) (σ the row's, :func:`qmodel.scenario.measurements.row_sigma`: a DB2 class 3
    suspension's run-to-run spread, 20%), each point's hot set inferred again there. None where the file
    gives lockable_items, no [band] replaces the inference's, a band point sets lockable_items itself, or a
    node has no hot set under the model (the words of the band then say nothing of it)."""
    measured, band = scenario.lock_measurement, scenario.band
    if measured is None or band is None or any("locks.lockable_items" in point for point in band.points):
        return None
    if not any(record.get("parameter") == "locks.lockable_items" for record in scenario.calibration):
        return None  # lockable_items given by the file, not inferred from the wait
    sigma = row_sigma("lock_contention")
    waits = (measured.wait * np.exp(-sigma), measured.wait * np.exp(sigma))
    try:  # each node must have a hot set: a wait the model reaches before it thrashes
        with_inferred_locks_together(
            [
                replace(scenario, lockable_items=np.nan, lock_measurement=replace(measured, wait=wait))
                for wait in waits
            ],
            scenario.lockable_items,
        )
    except (InputError, ScenarioError):
        return None
    nodes = tuple(f"{wait * 1e3:.6g}ms" for wait in waits)
    words = (
        f"{measured.wait * 1e3:.4g} ms, its σ {sigma:.0%} taken as known (a class 3 suspension's run-to-run "
        f"spread), at the two nodes of its normal on a log scale, {nodes[0]} and {nodes[1]}, each point's "
        "hot set inferred again there"
    )
    return ("locks.measured_wait", (nodes[0], nodes[1]), words)


def _parameters(
    raw: dict, scenario: Scenario, where: str, studies: dict[str, tuple[float, float]], record: FitRecord
) -> tuple[tuple[Scenario, ...], tuple[float, ...], tuple[str, ...], str]:
    """The parameter points of ``raw`` (the file's tables, with any node of :func:`_varied_nodes` set)
    and their weights, the source of each ("fit", or the key it ranges) and the words: its [band]'s
    points (a hot set a point infers from a measured wait not yet inferred: the caller infers every
    node's points together); or without a [band] the range the studies support (:func:`range_points`)."""
    band = scenario.band
    if band is None:
        points, moved, method = range_points(raw, scenario, where, studies)
        return points, (1 / (len(points) + 1),) * len(points), moved, method  # the scenario: a share
    points = band_points(raw, scenario, where)
    weights = band.weights or (1 / (len(points) + 1),) * len(points)
    method = band.method
    # a [band] the file (or its fit file) gives, or the interval of a hot set inferred from a measured wait
    moved = ("fit" if "band" in raw else "measured_wait",) * len(points)
    bare = [key for key in record.held if key not in studies]
    if bare:
        method += (
            f"; not varied: {', '.join(bare)} (held at its prior value by the fit; no range the studies "
            "support)"
        )
    return points, weights, moved, method


class Estimate(NamedTuple):
    """A default that is an estimate with a 95% interval (the schema's ``supported``), in its ``unit``:
    the default (``middle``) and σ, the interval's half-width over 1.96 (a normal); the interval's ends
    (``low``, ``high``); and ``room``, the largest value the file's own times leave room for, where that
    cuts the normal (inf: nowhere), with ``binding``, the refusal just above it in words."""

    key: str
    middle: float
    sd: float
    low: float
    high: float
    unit: str
    room: float = np.inf
    binding: str = ""

    def moments(self) -> tuple[float, float]:
        """The mean and standard deviation sampled: the normal's, the default and σ; clipped at
        ``room``, the normal truncated to 0 … room (a latency is not below 0), with a = −μ/σ and
        b = (room − μ)/σ, Z = Φ(b) − Φ(a): mean μ + σ (φ(a) − φ(b))/Z, variance
        σ² [1 + (a φ(a) − b φ(b))/Z − ((φ(a) − φ(b))/Z)²] (Johnson, Kotz & Balakrishnan, *Continuous
        Univariate Distributions* 1, §10.1)."""
        if not np.isfinite(self.room):
            return self.middle, self.sd
        a, b = -self.middle / self.sd, (self.room - self.middle) / self.sd
        normal = NormalDist()
        mass = normal.cdf(b) - normal.cdf(a)
        shift = (normal.pdf(a) - normal.pdf(b)) / mass
        variance = 1 + (a * normal.pdf(a) - b * normal.pdf(b)) / mass - shift**2
        return self.middle + self.sd * shift, self.sd * float(np.sqrt(variance))

    def nodes(self) -> tuple[str, str]:
        """Its two nodes as a file writes them, equal weights: the mean ± the standard deviation
        (:meth:`moments`), the two nodes of the Gauss–Hermite rule where not clipped (exact to the third
        moment), else the truncated normal's mean and variance."""
        mean, sd = self.moments()
        return f"{mean - sd:.6g}{self.unit}", f"{mean + sd:.6g}{self.unit}"

    def words(self) -> str:
        """What is sampled, in words; clipped, at what bound and why."""
        unit = self.unit
        said = (
            f"{self.middle:.4g} ± {self.sd:.3g}{unit} (normal: the default's 95% interval, {self.low:g} to "
            f"{self.high:g}{unit})"
        )
        if not np.isfinite(self.room):
            return said
        mean, sd = self.moments()
        return (
            f"{said}, clipped at {self.room:.4g}{unit}, the largest the file's own times leave room for "
            f"(above it, {self.binding}): the normal cut to 0 to {self.room:.4g}{unit}, {mean:.4g} ± "
            f"{sd:.3g}{unit}"
        )


def estimated_defaults(scenario: Scenario) -> list[Estimate]:
    """The defaults ``scenario`` takes that are estimates with a 95% interval (the schema's
    ``supported``: ``crossing_latency``, ``distribution.shape``). The estimate is normal, its σ the interval's
    half-width over 1.96, taken at the two nodes of the Gauss–Hermite rule, the estimate ± σ (the
    normal's mean and variance, exact to the third moment: two solves of each point)."""
    taken = {key for key, _ in scenario.defaults}
    found = []
    for schema_key in SCENARIO_KEYS:
        key = ".".join(filter(None, (schema_key.table, schema_key.name)))
        if schema_key.supported is None or key not in taken:
            continue
        low, high = (parse_value(key, end, schema_key.unit) for end in schema_key.supported)
        middle = parse_value(key, str(schema_key.default), schema_key.unit)  # the estimate: the default
        written = "" if schema_key.unit == "1" else schema_key.unit  # a bare number (a shape) writes none
        found.append(Estimate(key, middle, (high - low) / 2 / 1.96, low, high, written))
    return found


def within_room(raw: dict, where: str, estimate: Estimate) -> Estimate:
    """``estimate`` clipped where its upper node would contradict the file's own times read at a
    distance (:func:`qmodel.scenario.propagation.at_zero_km`, the one rule: a time less than the round
    trips the model adds at ``measured_at``, which grow with the estimate): ``room``, the largest value
    they leave room for, found by bisection between the default (which the file's times hold) and
    that node to :data:`ROOM_TOLERANCE`, the refusal just above it its ``binding``. Unchanged where the
    node is possible, or where the default itself is refused (the file's own refusal then stands)."""
    column = _column(raw, estimate.key, where, 0)

    def refusal(value: float) -> InputError | None:
        data = copy.deepcopy(raw)
        apply_override(data, column, f"{value:.10g}{estimate.unit}")
        try:
            at_zero_km(scenario_from_dict(data, where))
        except InputError as refused:
            return refused
        return None

    low, high = estimate.middle, estimate.middle + estimate.sd
    above = refusal(float(estimate.nodes()[1].removesuffix(estimate.unit)))
    if above is None or refusal(low) is not None:
        return estimate
    while high - low > ROOM_TOLERANCE:
        middle = (low + high) / 2
        refused = refusal(middle)
        if refused is None:
            low = middle
        else:
            high, above = middle, refused
    return estimate._replace(room=low, binding=_refusal_words(above))


def _refusal_words(refused: InputError) -> str:
    """A refusal of the file's own times in a few words: the key, its value and why."""
    key = refused.key if isinstance(refused, ScenarioError) else refused.parameter
    return f"{key} = {refused.value}, {refused.reason}" if refused.reason else f"{key} = {refused.value}"


def log_uniform_nodes(low: float, high: float) -> tuple[float, ...]:
    """:data:`RANGE_NODES` equal-weight nodes of a log-uniform range: the midpoints of equal steps of its
    logarithm (a count known only to within orders of magnitude)."""
    steps = (np.arange(RANGE_NODES) + 0.5) / RANGE_NODES
    return tuple(float(node) for node in np.exp(np.log(low) + steps * np.log(high / low)))


def range_points(
    raw: dict, scenario: Scenario, where: str, studies: dict[str, tuple[float, float]]
) -> tuple[tuple[Scenario, ...], tuple[str, ...], str]:
    """The scenario at :data:`RANGE_NODES` nodes of each lock parameter's range the studies support
    (``studies``: :func:`log_uniform_nodes`), one parameter at a time: the points, the key each one
    moves, and the words."""
    points: list[Scenario] = []
    keys: list[str] = []
    said = []
    for key, studied in studies.items():
        column = _column(raw, key, where, 0)
        low, high, words = supported_range(studied, _stated(scenario, key))
        for node in log_uniform_nodes(low, high):
            data = copy.deepcopy(raw)
            apply_override(data, column, node)
            points.append(scenario_from_dict(data, where))
            keys.append(key)
        said.append(f"{key} {words}")
    method = (
        (
            f"not pinned by a measurement of this file, the range the studies support ({'; '.join(said)}; "
            f"{RANGE_NODES} log-uniform nodes and the file's own value, equal weights)"
        )
        if said
        else ""
    )
    return tuple(points), tuple(keys), method


def _stated(scenario: Scenario, key: str) -> float:
    """The scenario's value (SI) of a lock parameter ``key`` (``locks.lockable_items``): where a fit of it
    starts (:func:`qmodel.scenario.fit.current_value`)."""
    (parameter,) = free_parameters(scenario, [key])
    return current_value(scenario, parameter)


def supported_range(studied: tuple[float, float], stated: float) -> tuple[float, float, str]:
    """The range the studies support for a lock parameter, ``studied``, widened to reach the value the
    file takes (``stated``: its own, or the prior a calibration held it at), which the answer rests on
    and so its band must reach (trial 5: a file's 6,623 against the studies' 1,629 to 2,109 gave an
    answer outside its own band); unchanged where that value is not a finite count above 0 (``inf``:
    no contention). Returns the ends and the words."""
    low, high = studied
    if not (np.isfinite(stated) and stated > 0) or low <= stated <= high:
        return low, high, f"from {low:,.4g} to {high:,.4g}"
    wide_low, wide_high = min(low, stated), max(high, stated)
    return (
        wide_low,
        wide_high,
        f"from {wide_low:,.4g} to {wide_high:,.4g} (the studies' {low:,.4g} to {high:,.4g}, widened to "
        f"the file's {stated:,.4g})",
    )


def band_points(raw: dict, scenario: Scenario, where: str) -> tuple[Scenario, ...]:
    """The scenario at each point of its [band] (``scenario.band``, read from ``raw``, the file's
    tables): the tables with the point's overrides, checked as a scenario file. A key that names
    nothing of the scenario, or a value the key does not take, is an InputError naming the file, the
    point and the key (``gdps-env2.toml: band.points[2].locks.lock_span``)."""
    if scenario.band is None:
        return ()
    count, members = len(scenario.band.points), len(scenario.members)  # each point read, then solved
    refuse_scenario_work(
        members,
        1 + count,
        count,
        f"{where}: {count:,} [band] points of {members:,} members",
        "fewer points (the ends of the confidence region's axes, as calibrate writes them) or fewer members",
    )
    tables = {key: value for key, value in raw.items() if key != "band"}
    points = []
    for index, point in enumerate(scenario.band.points, 1):
        overrides = [(key, _column(tables, key, where, index), value) for key, value in point.items()]
        data = copy.deepcopy(tables)
        for _, column, value in overrides:
            apply_override(data, column, _value(value, column))
        try:
            points.append(scenario_from_dict(data, where))
        except ScenarioError as error:
            raise _blame(tables, overrides, where, index, error) from None
    return tuple(points)


def _column(tables: dict, key: str, where: str, index: int) -> Column:
    """The override a point's key names (as a --variants header), refused in one line if none."""
    name = f"{where}: band.points[{index}]"
    try:
        column = override_column(0, key, tables, where)
    except InputError as error:
        raise InputError(name, key, error.allowed, reason=error.reason) from None
    if column is None or column.key == ("distance",):
        raise InputError(
            name,
            key,
            f"a dotted scenario key: {POINT_KEYS}",
            reason="the band is solved at every distance asked" if column else "unknown key",
        )
    if column.key[0] == "goal":  # the band is stated under the file's goal: a point may not move it
        raise InputError(
            name,
            key,
            "a key other than goal.*: the band is judged against the file's [goal]",
            reason="a point may not redefine the goal",
        )
    return column


def _value(value: object, column: Column) -> object:
    """A point's value as the file holds it; a bare number takes the unit its key gives (``[s]``)."""
    if column.unit is not None and not isinstance(value, bool) and bare_number(str(value)) is not None:
        return with_unit(str(value), column.unit)
    return value


def _blame(
    tables: dict, overrides: list[tuple[str, Column, object]], where: str, index: int, error: ScenarioError
) -> InputError:
    """The key of the point whose value alone the scenario refuses (:func:`first_refused`), named as the
    point writes it; the scenario's error for the point as a whole where no single value does."""
    values = [(column, _value(value, column)) for _, column, value in overrides]
    refused = first_refused(tables, values, where)
    if refused is not None:
        place, alone = refused
        return InputError(
            f"{where}: band.points[{index}].{overrides[place][0]}",
            alone.value,
            alone.allowed,
            reason=alone.reason,
        )
    return InputError(
        f"{where}: band.points[{index}] ({error.key})", error.value, error.allowed, reason=error.reason
    )


def _measured(banded: Banded) -> np.ndarray:
    """(K,) m, ascending: the distances the file's answers were measured and fitted at, from which the
    part an answer predicts is counted: its calibration's fitted rows' (:attr:`Banded.fitted_at`), or
    where its band says it was measured (``measured_at``); empty where nothing is measured."""
    if banded.fitted_at:
        return np.array(sorted(banded.fitted_at))
    return np.array([] if banded.measured_at is None else [banded.measured_at])


def from_nearest(base: np.ndarray, distances: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """(..., D): at each of ``distances`` (D,) m, the value ``base`` (..., K) has at the nearest of the
    ``measured`` distances (K,) m (the shorter at a tie): the part an answer predicts is its change from
    the nearest distance measured and fitted, so an answer at one of them predicts nothing (trial 8, P1:
    rows at 0 and 20 km counted the 0 km answer's growth from 20 km, 316 ms, as predicted). ``base``
    as it is where nothing is measured (NaN, (..., 1))."""
    if not measured.size:
        return base
    nearest = np.abs(np.asarray(distances, float)[:, None] - measured[None, :]).argmin(axis=1)
    return base[..., nearest]


def _values(result: ScenarioResult) -> dict[str, np.ndarray]:
    """The per-member values a band is sampled for, (M, D), SI: the breakdown's parts by their names."""
    return {
        "response": result.response_time,
        "throughput": result.throughput,
        "one_cp": result.throughput * result.cpu_per_transaction,
        "busy": result.cpu_busy,
        "fixed": result.fixed_part,
        **{name: result.breakdown[name] for name in BREAKDOWN},
    }


def _interpolated(at: np.ndarray, known: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``value`` (M, G) known at the ascending distances ``known`` (G,), linearly at ``at``; NaN next to
    a NaN."""
    missing = np.isnan(value)
    found = np.array([np.interp(at, known, np.where(missing[m], 0.0, value[m])) for m in range(len(value))])
    touched = np.array([np.interp(at, known, missing[m].astype(float)) for m in range(len(value))])
    return np.where(touched > 0, np.nan, found)


class _Sample(NamedTuple):
    """The answer's and each parameter point's values (S, M, D) by name (:func:`_values`), SI, the answer
    first; their values at the nearest distance measured and fitted (S, M, D: :func:`from_nearest`; NaN,
    (S, M, 1): nothing measured); per point (S, D)
    whether it has no answer, and (S, D) by each cause of ``WITHOUT_ANSWER`` (:func:`_causes`)."""

    values: dict[str, np.ndarray]
    base: dict[str, np.ndarray]
    thrashing: np.ndarray
    causes: dict[str, np.ndarray]

    def at(self, columns: slice) -> _Sample:
        """The same at some distances only (a base measured nowhere, (S, M, 1), as it is)."""
        return _Sample(
            {name: value[..., columns] for name, value in self.values.items()},
            {name: base[..., columns] if base.shape[-1] > 1 else base for name, base in self.base.items()},
            self.thrashing[..., columns],
            {cause: flags[..., columns] for cause, flags in self.causes.items()},
        )

    def predicted(self, name: str) -> np.ndarray:
        """The part of each value the model predicts: all of it where nothing is measured."""
        value, base = self.values[name], self.base[name]
        return np.where(np.isnan(base), value, value - base)


def _causes(result: ScenarioResult) -> dict[str, np.ndarray]:
    """Why ``result`` has no response time, (D,) bool by each cause of ``WITHOUT_ANSWER``: lock
    contention thrashes, the volumes cannot carry their other work, an open member's arrivals are more
    than its CPs or CF subchannels carry."""
    opened = result.open_saturated if result.open_saturated is not None else np.zeros_like(result.thrashing)
    return {
        "lock": result.lock_thrashing,
        "volumes": result.disk_saturated,
        "open": opened & result.thrashing,
    }


def _sampled(banded: Banded, nominal: ScenarioResult) -> _Sample:
    """The answer and each parameter point's values at every distance of ``nominal``: a point solved at
    up to GRID of them (and the measured distance) and its difference from the answer interpolated."""
    distances = nominal.distances
    order = np.argsort(distances, kind="stable")
    picked = np.round(np.linspace(0, distances.size - 1, min(distances.size, GRID))).astype(int)
    grid = order[_ascending_distinct(picked)]
    known = distances[grid]  # ascending
    measured = _measured(banded)
    at = np.concatenate([known, measured])
    own = _values(nominal)
    nothing = np.full((len(nominal.members), 1), np.nan)
    base = _values(solve_scenario(banded.scenario, measured)) if measured.size else {n: nothing for n in own}
    stacks = {name: [value] for name, value in own.items()}
    bases = {name: [from_nearest(base[name], distances, measured)] for name in own}
    causes = {cause: [flags] for cause, flags in _causes(nominal).items()}
    # each distinct point solved once (a point that differs from an earlier one only in its gamma shapes
    # has its values: no share is read), those of a group side by side on its load-free parts (held to
    # carrying their paths' other work by solve_banded), with no search for the load where lock
    # contention begins (the band reads neither it nor the waits' shares at its edge: the search took 25
    # of 29 s of trial 9's plexh --max-distance --plot)
    alike = solved_alike(banded.points)
    solved: dict[int, ScenarioResult] = {}
    for group, parts in load_free_groups(banded.points, at):
        distinct = [index for index in group if alike[index] == index]
        together = solve_scenarios_together(
            [banded.points[index] for index in distinct], at, parts, search=False
        )
        solved.update(zip(distinct, together, strict=True))
    for index in range(len(banded.points)):
        result = solved[alike[index]]
        for name, value in _values(result).items():
            step = value[:, : known.size] - own[name][:, grid]
            stacks[name].append(own[name] + _interpolated(distances, known, step))
            bases[name].append(
                from_nearest(value[:, known.size :], distances, measured) if measured.size else nothing
            )
        for cause, flags in _causes(result).items():  # a distance between two grid ones: either's cause
            causes[cause].append(np.interp(distances, known, flags[: known.size].astype(float)) > 0)
    values = {name: np.array(stack) for name, stack in stacks.items()}
    return _Sample(
        values,
        {name: np.array(stack) for name, stack in bases.items()},
        np.isnan(values["response"]).any(axis=1),
        {cause: np.array(flags) for cause, flags in causes.items()},
    )


def band_of(banded: Banded, nominal: ScenarioResult, level: float = LEVEL) -> Band:
    """The band at ``level`` on every value of ``nominal`` (the scenario solved at its distances): the
    sample's ends a block of distances at a time (:func:`_sample_ends`, :data:`SAMPLE_BYTES`)."""
    s = _sampled(banded, nominal)
    weights = banded.all_weights()
    probabilities = ends(level)
    response_sd = banded.sd("response_time", s.values["response"], s.predicted("response"))
    count = nominal.distances.size
    block = max(1, int(SAMPLE_BYTES // sample_bytes(len(weights), len(nominal.members), 1)))
    parts = [
        _sample_ends(
            banded, s.at(slice(first, first + block)), response_sd[..., first : first + block], level
        )
        for first in range(0, count, block)
    ]
    member_ends = {
        name: tuple(np.concatenate([part[0][name][end] for part in parts], axis=-1) for end in (0, 1))
        for name in parts[0][0]
    }
    for name in BREAKDOWN:  # the parameters' spread only
        low, high = quantiles(s.values[name], weights, probabilities)
        member_ends[f"{name}[ms]"] = (low * 1e3, high * 1e3)
    band_ends = {
        name: (_with_all(nominal, name, low), _with_all(nominal, name, high))
        for name, (low, high) in member_ends.items()
    }
    return Band(
        level,
        describe(banded, level),
        len(banded.points),
        band_ends,
        np.concatenate([part[1] for part in parts]),
        s.thrashing[1:].sum(axis=0),
        {cause: flags[1:].sum(axis=0) for cause, flags in s.causes.items()},
        narrowing(banded, s.values["response"], response_sd, weights),
        banded.misfit_words(),
    )


# The band's sample, (1 + points) × the nodes of the model's error (Z) × 2 (a closed member's run scatter,
# RUN_NODES) × members × distances of 8 bytes, formed this many bytes at a time (a block of distances): at
# most SAMPLE_ARRAYS such arrays live at once (the sample, its order, the values in order, a count's law and
# scatter). Its time: SECONDS_PER_SAMPLE per element of the sample at the model's nodes (points × Z × members
# × distances: its quantiles, shares and counts), measured 2.4 to 3.5 µs on gdps-env2 and a six-member
# planner's file (trial 8's plexq, 100 and 400 distances) on a 2-core machine at a load of 5
SAMPLE_BYTES = 64e6
SAMPLE_ARRAYS = 6
SECONDS_PER_SAMPLE = 3.5e-6


def sample_bytes(points: int, members: int, distances: int) -> float:
    """The bytes of one array of a band's sample over ``points`` parameter points (the answer included),
    ``members`` and ``distances``: each point at every node of the model's error and a run's scatter."""
    return 8.0 * points * Z.size * RUN_NODES.size * members * distances


def _sample_ends(
    banded: Banded, s: _Sample, response_sd: np.ndarray, level: float
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """The band's ends (M, D) by name of the values sampled with the model's error (the response time,
    the share within the goal, the counts and CPU) and the probability (D,) that every member meets the
    goal, at the distances of ``s`` (:meth:`_Sample.at`)."""
    weights = banded.all_weights()
    probabilities = ends(level)
    spread, w = samples(s.values["response"], response_sd, weights)
    long_end, short_end = quantiles(spread, w, probabilities[::-1])
    # each sample's share within the goal at its own point's fixed part and members' shapes (a point at a
    # node of distribution.shape has its own: M1), a point without an answer the lowest
    points = (banded.scenario, *banded.points)
    shapes = np.repeat(np.array([point.member_shapes for point in points]), Z.size, axis=0)[:, :, None]
    fixed = np.repeat(s.values["fixed"], Z.size, axis=0)
    shares = quantiles(
        share_within(banded.scenario.goal_time, spread, fixed, shapes), w, probabilities, False
    )
    given = _given(banded.scenario)
    closed = _closed_throughput(banded, spread)  # (S·K, M, D), NaN for an open member

    def counted(name: str) -> tuple[np.ndarray, np.ndarray]:
        value = s.values[name]
        beyond_given, beyond_measured = value - given[name], s.predicted(name)
        predicted = np.where(
            given["open"] | (np.abs(beyond_given) < np.abs(beyond_measured)), beyond_given, beyond_measured
        )
        sd = banded.sd("throughput", value, predicted)
        if name == "throughput":  # an open member's throughput is its arrival rate: given, no error
            sd = np.where(given["open"], 0.0, sd)
        spread_of, w_of = samples(value, sd, weights)
        # a closed member's: its throughput at each sample's response time (X = N / (Z + R)), its CPU that
        # times the point's own per transaction, the same sample giving both (trial 8, P2: a throughput band
        # of 0 to 111/s beside a response band that gives 34 to 55/s), and around each a run's own scatter
        # (the error with nothing predicted: the law predicts the growth) at the two nodes of the
        # Gauss-Hermite rule, its mean and variance (a node per sample: the sample twice, not K times)
        law = closed * np.repeat(value / s.values["throughput"], Z.size, axis=0)
        run = banded.sd("throughput", law, np.zeros_like(law))
        scattered, w_law = samples(law, run, w_of, RUN_NODES)
        spread_of = np.where(given["open"], np.repeat(spread_of, RUN_NODES.size, axis=0), scattered)
        low, high = quantiles(spread_of, w_law, probabilities, missing_high=False)
        return np.maximum(low, 0.0), np.maximum(high, 0.0)  # a count or a CPU busy is never below 0

    member_ends = {
        "response_time[ms]": (short_end * 1e3, long_end * 1e3),
        "share_within_goal[%]": (shares[0] * 100, shares[1] * 100),
        "throughput[1/s]": counted("throughput"),
        "cpu_busy_of_lpar[%]": tuple(end * 100 for end in counted("busy")),
        "cpu_of_one_cp[%]": tuple(end * 100 for end in counted("one_cp")),
    }
    critical = np.repeat(_critical_means(banded, s.values["fixed"]), Z.size, axis=0)
    holds = (np.nan_to_num(spread, nan=np.inf) <= critical).all(axis=1)
    return member_ends, np.clip(w @ holds, 0.0, 1.0)


def _closed_throughput(banded: Banded, response: np.ndarray) -> np.ndarray:
    """(S·K, M, D) 1/s: each closed member's throughput at the sample's response times ``response``
    (S·K, M, D) s, the samples of :func:`qmodel.scenario.predictive.samples` (each point K times), by the
    response time law with the point's own terminals and think time
    (:meth:`qmodel.scenario.compose.Workload.throughput`, the solve's own); NaN for an open member and
    where a sample has no response time."""
    points = (banded.scenario, *banded.points)
    nodes = response.shape[0] // len(points)
    alike = np.zeros(1)  # terminals and think times are alike at every distance
    with np.errstate(invalid="ignore", divide="ignore"):
        found = np.concatenate(
            [
                workload(point, alike).throughput(response[s * nodes : (s + 1) * nodes])
                for s, point in enumerate(points)
            ]
        )
    opened = np.array([m.open for m in banded.scenario.members])[None, :, None]
    return np.where(opened, np.nan, found)


def _given(scenario: Scenario) -> dict[str, np.ndarray]:
    """What the file gives of each member's counts, (M, 1) to broadcast over (S, M, D): an open member's
    throughput is its arrival rate, a closed member's bounded by its terminals over their think time
    (X = N / (Z + R) ≤ N / Z: what the model predicts is the drop its response time makes), and the CPU
    that rate times the member's own CPU per transaction (of one CP, and of its LPAR); the model predicts
    only the CPU its CF requests add. ``open``: which members are open."""
    rate = np.array(
        [
            m.arrival_rate
            if m.arrival_rate is not None
            else m.terminals / m.think_time
            if m.think_time > 0
            else np.inf
            for m in scenario.members
        ]
    )[:, None]
    cpu = np.array([m.cpu for m in scenario.members])[:, None]
    cps = np.array([m.logical_cps for m in scenario.members], float)[:, None]
    return {
        "open": np.array([m.open for m in scenario.members])[:, None],
        "throughput": rate,
        "one_cp": rate * cpu,
        "busy": rate * cpu / cps,
    }


def _with_all(nominal: ScenarioResult, name: str, end: np.ndarray) -> np.ndarray:
    """A band end (M, D) with its "all" row where the answer has one: the members' ends summed (throughput,
    CPU of one CP) or weighted by their throughput (the rest); the LPAR share NaN."""
    if len(nominal.members) == 1:
        return end
    weights = nominal.throughput
    if name in ("throughput[1/s]", "cpu_of_one_cp[%]"):
        total = end.sum(axis=0)
    elif name == "cpu_busy_of_lpar[%]":
        total = np.full(end.shape[1], np.nan)
    else:
        total = (end * weights).sum(axis=0) / weights.sum(axis=0)
    return np.vstack([end, total[None, :]])


def describe(banded: Banded, level: float) -> str:
    """What the band is made of, in words."""
    error = banded.error
    if error.spread:
        shown = "; ".join(
            f"{kind.replace('_', ' ')}: σ {error.spread[kind]:.1%} of the value, q "
            f"{error.growth[kind]:.1%} of the predicted part"
            for kind in error.spread
        )
        where = (
            "the whole of each answer (no response time of this file is measured: all of it is predicted)"
            if banded.measured_at is None
            else "the part each answer predicts beyond what was measured at "
            + (
                f"{_measured(banded)[0] / 1e3:g} km"
                if _measured(banded).size == 1
                else f"the nearest of {' and '.join(f'{d / 1e3:g}' for d in _measured(banded))} km"
            )
        )
        model = f"the model's own error on {where} ({shown}; {error.method})"
    else:
        model = "no error of the model's own (it has not been sized: qmodel scenario cross-validate --write)"
    missed = [m for m in banded.misfits if m.spread > error.spread.get(m.kind, 0.0)]
    if missed:
        model += (
            "; and the calibration's misfit beyond a run's scatter, √(μ² − σ²) of each value at every "
            "distance ("
            + ", ".join(f"{m.member} {m.kind.replace('_', ' ')}: μ {m.spread:.1%}" for m in missed)
            + ")"
        )
    points = (
        f"{len(banded.points)} parameter points ({banded.method})" if banded.points else "no parameter points"
    )
    shape = dict(banded.scenario.defaults).get("distribution.shape")
    shape = None if "distribution.shape" in banded.varied else shape  # varied: its nodes say it
    unvaried = (
        f"; not varied: distribution.shape {shape}, the default (the spread of each member's response "
        "times about their mean, which sets its share within the goal time: a member's share within the "
        "goal measured, RMF workload activity's response time distribution, with member.NAME.shape free "
        "would fit it)"
        if shape is not None
        else ""
    )
    return f"{level_text(level)} band: {points}, sampled jointly with {model}{unvaried}"


def narrowing(banded: Banded, response: np.ndarray, sd: np.ndarray, weights: np.ndarray) -> str:
    """The measurement that would narrow the band most (:data:`NARROW`), by which part of the response
    time's variance, summed over members and distances, is the larger: the parameter points' spread
    about their mean (``response`` (S, M, D), ``weights`` (S,)) or the model's own error (``sd``); "" where
    the parameters' part is the larger and they have no points. What it asks for is what the rows do not
    have yet (:func:`measured_distances`): a second distance where everything was measured at one, and
    beyond the farthest where two or more were measured."""
    values = np.nan_to_num(response)
    mean = np.einsum("s,smd->md", weights, values)
    parameters = float(np.einsum("s,smd->", weights, (values - mean) ** 2))
    model = float(np.einsum("s,smd->", weights, np.nan_to_num(sd) ** 2))
    distances = measured_distances(banded)
    beyond = "_beyond" if len(distances) >= 2 else ""
    shown = [f"{d / 1e3:g} km" for d in distances] or ["today's distance"]
    words = {"at": shown[0], "farthest": shown[-1], "distances": " and ".join(shown)}
    if parameters >= model:
        if not banded.points:
            return ""
        return NARROW[_narrowing_key(banded, _widest(banded, values[1:], weights[1:]), beyond)].format(
            **words
        )
    if banded.measured_at is not None:
        return NARROW["growth" + beyond].format(**words)
    return NARROW["unmeasured_open" if all(m.open for m in banded.scenario.members) else "unmeasured"]


def _narrowing_key(banded: Banded, widest: str, beyond: str) -> str:
    """The :data:`NARROW` words for the source that spreads the band most (:func:`_widest`): a measured
    lock wait's (the inference's own interval, or its σ at nodes after a calibration: trial 8, P3, where
    the nodes were told the lock contention it gives would pin the lock parameters); a lock parameter a
    calibration held at its prior (taken at nodes), the growth a second distance (or one farther out)
    would fit; a lock parameter ranged without a calibration, the lock contention at today's distance;
    ``beyond`` "_beyond" where two or more distances are measured."""
    if widest in ("measured_wait", "locks.measured_wait"):
        return "measured_wait" + beyond
    if widest.startswith("locks."):
        return "growth" + beyond if widest in banded.varied else "range"
    if widest == "crossing_latency" and banded.scenario.measured_at <= 0:  # no route between the sites yet
        return "crossing_latency_before"
    return widest


def measured_distances(banded: Banded) -> tuple[float, ...]:
    """The distances (m, ascending) the file's measurements were taken at: its calibration's fitted rows
    (:attr:`Banded.fitted_at`) and its measured lock wait; without either, where its band says it was
    measured (``measured_at``); () where nothing is measured."""
    found = set(banded.fitted_at)
    lock = banded.scenario.lock_measurement
    if lock is not None:
        found.add(lock.distance)
    if not found and banded.measured_at is not None:
        found.add(banded.measured_at)
    return tuple(sorted(found))


def _widest(banded: Banded, values: np.ndarray, weights: np.ndarray) -> str:
    """Which source of the parameter points (``values`` (P, M, D), ``weights`` (P,)) spreads the response
    time most: each key taken at nodes (:attr:`Banded.varied`: the points are their product) by the
    spread of its nodes' means about the overall mean (its main effect), each other source (the fit's
    points, each ranged key) by its points' spread about the mean of their combination of nodes."""
    sources = banded.ranged or ("fit" if banded.pinned else "range",) * len(banded.points)
    nodes = np.array(banded.combination or [()] * len(banded.points), int).reshape(len(banded.points), -1)
    share = max(float(weights.sum()), 1e-300)
    overall = np.einsum("p,pmd->md", weights, values) / share
    spread: dict[str, float] = {}

    def means(part: np.ndarray) -> tuple[float, np.ndarray]:
        weight = float(weights[part].sum())
        return weight, np.einsum("p,pmd->md", weights[part], values[part]) / max(weight, 1e-300)

    for k, key in enumerate(banded.varied):
        for node in set(nodes[:, k].tolist()):
            weight, mean = means(nodes[:, k] == node)
            spread[key] = spread.get(key, 0.0) + weight * float(((mean - overall) ** 2).sum())
    within = np.zeros(values.shape)
    for combination in {tuple(row) for row in nodes.tolist()}:
        part = (nodes == np.array(combination, int)).all(axis=1)
        within[part] = values[part] - means(part)[1]
    for key, weight, deviation in zip(sources, weights, within, strict=True):
        spread[key] = spread.get(key, 0.0) + float(weight * (deviation**2).sum())
    return max(spread, key=spread.__getitem__)


def solve_banded(
    banded: Banded, distances: np.ndarray | None = None, level: float = LEVEL, *, search: bool = True
) -> ScenarioResult:
    """The answer (:func:`qmodel.scenario.compose.solve_scenario`) with its band at ``level``
    (:func:`band_of`): every point solved at up to GRID distances, estimated before any work starts.

    :param banded: the scenario and its band (:func:`load_banded`).
    :param distances: (D,) m between the sites; None: the file's distances.
    :param level: the band's level, a share (0.8: 80% of the outcomes under the model fall within it).
    :param search: the answer's search of the load where lock contention begins where it thrashes
        (:func:`qmodel.scenario.compose.solve_scenario`; the band's points never search).
    :returns: the :class:`ScenarioResult` (SI units) with its ``band`` at ``level``.
    """
    scenario = banded.scenario
    distances = np.atleast_1d(np.asarray(scenario.distances if distances is None else distances, float))
    if banded.points:
        small = min(distances.size, GRID) + (banded.measured_at is not None)
        solves = len(set(solved_alike(banded.points)))  # the points solved (:func:`_sampled`)
        for each in (scenario, *banded.points):
            refuse_huge(
                each,
                distances.size + small * solves,
                what=f"{distances.size:,} distance(s), and the band's {solves} distinct points "
                f"at {small} of them",
            )
        memory, seconds = solve_cost(scenario, distances.size + small * solves, EVALUATIONS)
        points, members = 1 + len(banded.points), len(scenario.members)
        refuse_too_large(  # and the band's sample at every distance: its quantiles (:func:`band_of`)
            memory + SAMPLE_ARRAYS * min(SAMPLE_BYTES, sample_bytes(points, members, distances.size)),
            seconds + sample_bytes(points, members, distances.size) / 8 / RUN_NODES.size * SECONDS_PER_SAMPLE,
            f"{distances.size:,} distance(s), and the band's {len(banded.points)} points sampled at each",
            f"fewer distances (--points), or {FEWER_POINTS}",
        )
        for group in load_free_indices(banded.points):  # the paths' other work: read from the load-free parts
            refuse_uncarried_background(banded.points[group[0]])
    nominal = solve_scenario(scenario, distances, search=search)
    if not banded.has_band:
        return nominal
    return replace(nominal, band=band_of(banded, nominal, level))


# the goal seek's own fields its band's record carries beside the distances
SEEK_FIELDS = (
    "goal_holds_beyond_search",
    "tolerance[km]",
    "searched_to[km]",
    "breaking_member",
    "breaking_component",
)


class GoalBand(NamedTuple):
    """The goal seek's answer, its band's ends at ``level`` (m; beyond the search's end where the goal
    holds throughout it; 0 where it fails at 0 km), the probability the goal holds at each of ``asked``
    (m; NaN past the search's end, the links' reach or --up-to: a distance not searched has none), what
    the band is made of and the measurement that would narrow it most."""

    answer: GoalSeek
    level: float
    low: float | None  # None: no band
    high: float | None
    asked: np.ndarray
    probability: np.ndarray
    method: str = ""
    narrow: str = ""
    misfit: str = ""
    # the weight of the outcomes failing the goal at 0 km, and at 0 km or within the first metre (where
    # crossing_latency is first paid): what a band's low end of 0 km stands for
    near_zero: tuple[float, float] = (np.nan, np.nan)

    def to_json(self) -> dict[str, object]:
        """One record (keys: :func:`qmodel.frames.key`): the largest distance and its band's ends
        (``max_distance_low[km]``, ``max_distance_high[km]``: None without a band, or where the goal
        holds beyond the search), whether each end is beyond the search (``max_distance_high_beyond_search``:
        None without a band; true where the table says "over" ``searched_to[km]``: the empty cell a
        spreadsheet reads beside it is no distance, trial 8, P10), the level, whether the goal holds beyond
        the search, the search's tolerance and reach, and the member and component breaking the goal."""
        answer = self.answer.to_json()
        ends: dict[str, object] = {}
        for end, value in (("low", self.low), ("high", self.high)):
            beyond = None if value is None else bool(value > self.answer.searched)
            ends[frames.key(f"max_distance_{end}", "km")] = (
                None if value is None or beyond else float(np.floor(value / 100) / 10)
            )
            ends[f"max_distance_{end}_beyond_search"] = beyond
        return {
            frames.key("max_distance", "km"): answer[frames.key("max_distance", "km")],
            **ends,
            "level": None if self.low is None else self.level,
            **{name: answer[name] for name in SEEK_FIELDS},
        }

    def probabilities(self) -> list[dict[str, object]]:
        """The probability that every member meets the goal at each distance asked (km, %; None past the
        search's end)."""
        return [
            {
                frames.key("distance", "km"): float(d / 1e3),
                frames.key("goal_holds", "%"): None if np.isnan(p) else float(p * 100),
            }
            for d, p in zip(self.asked, self.probability, strict=True)
        ]

    def band_json(self) -> dict[str, object]:
        """The JSON's ``band``: its level, what it is made of and the measurement that would narrow it most,
        or why there is none."""
        if self.low is None:
            return {"level": None, "method": None, "why_none": NO_BAND}
        return {
            "level": self.level,
            "method": self.method,
            "narrow": self.narrow or None,
            "misfit": self.misfit or None,
        }

    def records(self) -> list[dict[str, object]]:
        """:meth:`to_json` as the one row of a table."""
        return [self.to_json()]

    def to_frame(self):
        """:meth:`records` as a pandas DataFrame."""
        return frames.to_frame(self.records())

    def _repr_html_(self) -> str:
        searched = f"searched to {self.answer.searched / 1e3:g} km, to within {TOLERANCE:g} m"
        held = [
            f"{p['distance[km]']:g} km: the goal holds with probability {p['goal_holds[%]']:.0f}%"
            if p["goal_holds[%]"] is not None
            else f"{p['distance[km]']:g} km: beyond the search, no probability"
            for p in self.probabilities()
        ]
        return frames.html(
            "goal seek: the largest distance that keeps the goal, with its band",
            self.records(),
            lines=[searched, *held],
        )


def max_distance_banded(
    banded: Banded, upper: float = 300e3, level: float = LEVEL, asked: np.ndarray | None = None
) -> GoalBand:
    """:func:`qmodel.scenario.goal.max_distance` for the scenario, and the band of the largest distance
    at ``level``: every sample (parameter point × model-error node) is a curve, each member's mean
    against the longest that meets the goal; the sample's largest distance is where its least margin
    crosses 0, found on SEEK_GRID distances from 0 to ``upper`` (linear between them); the band is the
    weighted quantiles of those distances, and the probability the goal holds at a distance the weight of
    the samples that meet it at 0 km and whose largest distance reaches it.

    :param banded: the scenario and its band (:func:`load_banded`).
    :param upper: m, the farthest distance searched.
    :param level: the band's level, a share.
    :param asked: (A,) m, distances at which the probability that the goal holds is wanted.
    :returns: :class:`GoalBand`: the answer, its band's ends (m) and the probabilities at ``asked``.
    """
    asked = np.array([]) if asked is None else np.asarray(asked, float)
    answer = max_distance(banded.scenario, upper)
    upper = answer.searched  # no farther than the scenario's links reach
    if not banded.has_band:
        return GoalBand(answer, level, None, None, asked, np.full(asked.shape, np.nan))
    grid = seek_grid(answer, upper, asked)
    measured = _measured(banded)
    scenario = banded.scenario
    points = (scenario, *banded.points)
    # A sample's largest distance reads its margin only up to the first distance where it fails, so the
    # distances past the one where every sample has failed change nothing (the band's end, its
    # probabilities and the variance that names the narrowing measurement all lie before it): the grid
    # is solved to SEEK_FIRST times the answer first, the rest only where some sample still meets the
    # goal at its last distance. Each distance is solved on its own (the fixed point's columns do not
    # interact), so the values are those of one solve over the whole grid.
    first = grid.size
    if not answer.holds_throughout:
        far = SEEK_FIRST * (0.0 if np.isnan(answer.distance) else answer.distance)
        first = min(max(int(np.searchsorted(grid, far, side="right")) + 1, 2), grid.size)
    response, base, fixed = _seek_solves(points, grid[:first], measured)
    sd, weights, margin = _seek_margin(banded, response, from_nearest(base, grid[:first], measured), fixed)
    if first < grid.size and not (margin < 0).any(axis=1).all():
        more, _, more_fixed = _seek_solves(points, grid[first:], np.array([]))
        response, fixed = (
            np.concatenate([response, more], axis=2),
            np.concatenate([fixed, more_fixed], axis=2),
        )
        sd, weights, margin = _seek_margin(banded, response, from_nearest(base, grid, measured), fixed)
        first = grid.size
    grid = grid[:first]
    reach = _crossings(grid, margin, upper)
    # the band's ends from the grid without the distances asked: what is asked does not move them
    own = _members(grid, seek_grid(answer, upper, np.array([])))
    low, high = quantiles(_crossings(grid[own], margin[:, own], upper), weights, ends(level))
    holds = margin[:, 0] >= 0  # a sample that fails at 0 km reaches 0 km but does not hold there
    probability = np.clip([weights @ ((reach >= d) & holds) for d in asked], 0.0, 1.0)
    probability[asked > upper] = np.nan  # past the links' reach or --up-to: not searched, no probability
    near_zero = (float(weights @ ~holds), float(weights @ (~holds | (reach <= grid[1]))))  # grid[1]: 1 m
    reached = grid <= max(float(high), grid[1]) if np.isfinite(high) else grid >= 0
    narrow = (
        NARROW["distribution.shape"]
        if shape_leads(banded, reach, weights)
        else narrowing(banded, response[:, :, reached], sd[:, :, reached], banded.all_weights())
    )
    return GoalBand(
        answer,
        level,
        float(low),
        float(high),
        asked,
        probability,
        describe(banded, level),
        narrow,
        banded.misfit_words(),
        near_zero,
    )


SHAPE_LEADS = 0.5  # the share of the largest distances' variance a default shape's nodes explain to be named


def shape_leads(banded: Banded, reach: np.ndarray, weights: np.ndarray) -> bool:
    """Whether the default gamma shape, taken at its nodes (``distribution.shape`` in
    :attr:`Banded.varied`), is what to measure first for the goal seek: its nodes' means alone (its main
    effect) explain at least :data:`SHAPE_LEADS` of the variance of the sample's largest distances
    (``reach`` (S·K,) m, ``weights`` (S·K,)). The shape moves no response time, only the share of them
    within the goal, so :func:`narrowing`, which weighs response times, never names it."""
    if "distribution.shape" not in banded.varied or not banded.combination:
        return False
    k = banded.varied.index("distribution.shape")
    node = np.repeat([-1, *(combination[k] for combination in banded.combination)], Z.size)  # -1: itself
    share = float(weights.sum())
    mean = float(weights @ reach) / share
    total = float(weights @ (reach - mean) ** 2)
    effect = 0.0
    for each in set(node.tolist()) - {-1}:
        part = node == each
        weight = float(weights[part].sum())
        effect += weight * (float(weights[part] @ reach[part]) / weight - mean) ** 2
    return total > 0 and effect >= SHAPE_LEADS * total


def seek_grid(answer: GoalSeek, upper: float, asked: np.ndarray) -> np.ndarray:
    """The distances (m) the band of a goal seek solves every point at: SEEK_GRID from 0 to ``upper``, and
    where a margin may jump, so that no crossing is drawn as a line across a step: just above 0 km
    (``crossing_latency`` is paid from the first metre) and on either side of the answer's own distance
    (the central curve crosses there, so the band's samples of it cross where the answer does); and the
    distances ``asked`` (m), so that the probability the goal holds there is read from the curves' own
    values, as a solve at those distances reads it."""
    found = [np.linspace(0.0, upper, SEEK_GRID), np.array([min(1.0, upper)]), asked[asked <= upper]]
    if np.isfinite(answer.distance):
        found.append(np.clip([answer.distance, answer.distance + TOLERANCE], 0.0, upper))
    return _ascending_distinct(np.concatenate(found))


def _members(grid: np.ndarray, subset: np.ndarray) -> np.ndarray:
    """(G,) True where a distance of ``grid`` (ascending, distinct) is one of ``subset``."""
    at = np.clip(np.searchsorted(grid, subset), 0, max(grid.size - 1, 0))
    found = np.zeros(grid.size, dtype=bool)
    found[at[grid[at] == subset]] = True
    return found


def _ascending_distinct(values: np.ndarray) -> np.ndarray:
    """``values`` sorted, each once: ``np.unique`` without its check for a masked array, which loads
    numpy.ma (about 30 ms of a --max-distance answer's whole process)."""
    ordered = np.sort(values)
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])] if ordered.size else ordered


# What makes the goal seek's band smaller where its estimate is too large: the finite-source queue keeps a
# state per terminal of a closed member, an open one none; a calibration's band has a point per end of each
# fitted parameter's axis
# fewer band points: each default the band takes at nodes, stated in the file, halves them (trial 9, Q4)
FEWER_POINTS = (
    "fewer band points: the defaults the band takes at nodes (crossing_latency, distribution.shape) "
    "stated in the file, or fewer free parameters in the calibration"
)
SEEK_WAY_OUT = (
    "a closed member with many terminals given by its transaction rate (member.NAME.arrival_rate: an open "
    f"member keeps no state per terminal), or {FEWER_POINTS}"
)


def _seek_solves(
    points: tuple[Scenario, ...], distances: np.ndarray, measured: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each parameter point solved at ``distances`` and ``measured`` (m) with no search for the load where
    lock contention begins (a curve that thrashes fails the goal there, which is all the seek reads; the
    search took 16 of 18 s of Environment 2's band): the response times (S, M, D) at ``distances``, at
    ``measured`` (S, M, K; NaN, (S, M, 1), where nothing is measured) and each point's fixed part
    (S, M, D), s; the points that share their load-free parts solved together
    (:func:`~qmodel.scenario.compose.load_free_groups`,
    :func:`qmodel.scenario.compose.response_times_together`). Where ``distances`` start at 0 km, every
    group's paths are first held to carrying their other work there (:func:`refuse_uncarried_background`,
    on the load-free parts the solve then uses)."""
    at = np.concatenate([distances, measured])
    solves = len(set(solved_alike(points)))  # each distinct point solved once (response_times_together)
    refuse_huge(
        points[0],
        solves * at.size,
        what=f"the band of the largest distance: {solves} distinct points at {at.size} distances",
        way_out=SEEK_WAY_OUT,
    )
    solved = np.empty((len(points), len(points[0].members), at.size))
    fixed: list[np.ndarray] = [np.empty(0)] * len(points)
    for group, parts in load_free_groups(points, at):
        if distances[0] == 0:
            refuse_uncarried_background(points[group[0]], parts.at(slice(0, 1)))
        together = [points[i] for i in group]
        solved[group] = response_times_together(together, at, parts, checked=True)
        for i in group:
            fixed[i] = parts.fixed_part[:, : distances.size]
    response = solved[:, :, : distances.size]
    base = solved[:, :, distances.size :] if measured.size else np.full((*response.shape[:2], 1), np.nan)
    return response, base, np.array(fixed)


def _seek_margin(
    banded: Banded, response: np.ndarray, base: np.ndarray, fixed: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The model's error on ``response`` (S, M, D) s given its values at the nearest measured distance
    ``base`` (S, M, D: :func:`from_nearest`), the weights of the sample (:func:`samples`, S·K) and each
    sample's least margin (S·K, D) s: the longest mean meeting the goal (:func:`critical_mean` at each
    point's own fixed part ``fixed`` (S, M, D): a point that moves the round trip moves it, and its own
    members' shapes) less the sample's mean, −inf where it has none."""
    sd = banded.sd("response_time", response, np.where(np.isnan(base), response, response - base))
    spread, weights = samples(response, sd, banded.all_weights())
    critical = np.repeat(_critical_means(banded, fixed), Z.size, axis=0)
    return sd, weights, np.nan_to_num(critical - spread, nan=-np.inf).min(axis=1)


def _critical_means(banded: Banded, fixed: np.ndarray) -> np.ndarray:
    """(S, M, D) s: each point's longest mean meeting the goal (:func:`critical_mean`) at its own fixed
    part ``fixed`` (S, M, D) and its own members' shapes (:func:`critical_ratio`: a point at a node of
    distribution.shape has its own), the scenario first."""
    scenario = banded.scenario
    return np.array(
        [
            critical_mean(scenario.goal_time, each, critical_ratio(point.member_shapes, scenario.goal_share))
            for each, point in zip(fixed, (scenario, *banded.points), strict=True)
        ]
    )


def _crossings(grid: np.ndarray, margin: np.ndarray, upper: float) -> np.ndarray:
    """Per sample (rows of ``margin``, (N, G)), the distance where its margin first falls below 0, linear
    between the grid's distances (the last distance meeting the goal where the next has no answer); 0
    where it fails at 0 km; just beyond ``upper`` where it holds throughout."""
    failing = margin < 0
    first = np.argmax(failing, axis=1)
    reach = np.full(margin.shape[0], upper * (1 + 1e-9))
    fails = failing.any(axis=1)
    at_zero = fails & (first == 0)
    inside = fails & (first > 0)
    j = first[inside]
    rows = np.flatnonzero(inside)
    before, after = margin[rows, j - 1], margin[rows, j]
    step = np.where(np.isfinite(after), before / (before - after), 0.0)
    reach[inside] = grid[j - 1] + (grid[j] - grid[j - 1]) * step
    reach[at_zero] = 0.0
    return reach


__all__ = ["LEVEL", "Banded", "GoalBand", "band_of", "load_banded", "max_distance_banded", "solve_banded"]
