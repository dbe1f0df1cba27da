"""An answer's predictive distribution: the parameters' points times the model's own error, and its
quantiles at a level (docs/background/cross-validation.md, "The band").

The distribution is a weighted sample. Each parameter point s (weight w_s: the sigma points of a fit's
joint normal, the nodes of a range the studies support, each value of a run fact a planner cannot
choose) gives the model's value y_s and its predicted part g_s (y_s less the model's value at the
scenario's measured configuration: what was measured and fitted there is not predicted). The model's
own error at the point is normal with variance (σ·y_s)² + (q·g_s)² (:class:`ModelError`, σ and q by
kind, sized by cross-validation across environments), taken by :data:`NODES` stratified standard-normal
nodes z_k (the (k − ½)/K quantiles), each of weight w_s/K. A sample's error is the same at every
distance and for every member (an environment's error is one error), so each sample is a curve.

Everything here is plain numpy on arrays whose first axis is the sample: no solve, no scipy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from qmodel.scenario.compose import evaluate_si

LEVEL = 0.80  # the default level of a band
NODES = 61  # standard-normal nodes per parameter point: a central band to within 0.7% up to 95%
KINDS = ("response_time", "throughput")  # the kinds of the model's own error (CPU takes throughput's)


def normal_nodes(count: int = NODES) -> np.ndarray:
    """The ``count`` stratified standard-normal nodes: the (k − ½)/count quantiles, k = 1..count."""
    return np.array([NormalDist().inv_cdf((k + 0.5) / count) for k in range(count)])


Z = normal_nodes()


@dataclass(frozen=True)
class ModelError:
    """The model's own error by kind: a value y whose predicted part is g has an error of standard
    deviation √((σ·y)² + (q·g)²); σ (``spread``) the run-to-run spread of a measurement, q (``growth``)
    the relative error of the predicted part, both relative (fractions). ``method`` says where they come
    from. Empty: no error of the model's own is known."""

    spread: dict[str, float] = field(default_factory=dict)
    growth: dict[str, float] = field(default_factory=dict)
    method: str = ""

    def sd(self, kind: str, value: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """The error's standard deviation for values of ``kind`` (same unit as ``value``): the run-to-run
        part at every value, the measured configuration's included (a run there scatters too), and the
        growth part on what is predicted (``predicted`` 0 at the measured configuration), so the band
        narrows continuously toward the measurement and never vanishes at it."""
        sigma, q = self.spread.get(kind, 0.0), self.growth.get(kind, 0.0)
        return np.hypot(sigma * np.asarray(value, float), q * np.asarray(predicted, float))


def sigma_points(
    x: np.ndarray,
    covariance: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[tuple[np.ndarray, float]]:
    """The sigma points of a joint normal of mean ``x`` (p,) and ``covariance`` (p, p), with their weights:
    the unscented transform (Julier and Uhlmann, Proc. IEEE 92 (2004) 401) with κ = max(3 − p, 0), so
    n = p + κ = max(p, 3): the mean, weight κ / n, first, then ±√n standard deviations along each
    principal axis of the covariance, weight 1/(2n) each. For p ≤ 3 that is ±√3 σ, weights 1/6 and the
    mean (3 − p)/3 (for p = 1 the three-point Gauss–Hermite rule); for p > 3, where κ = 3 − p would give
    the mean a negative weight (which a weighted quantile cannot take), κ = 0: ±√p σ, weights 1/(2p), the
    mean 0 (the third-degree spherical-radial cubature rule; Arasaratnam and Haykin, IEEE Trans. Autom.
    Control 54 (2009) 1254). The weights sum to 1 and the points reproduce the mean and the covariance.

    :param bounds: (low, high), each (p,), on the scale of ``x``: a point's value past its bound is put
        at the bound (the point's other values and its weight kept; the spread on that side is then less
        than the normal's), so every point is a value the parameters can take.
    """
    x = np.asarray(x, float)
    scales, axes = np.linalg.eigh(np.atleast_2d(covariance))
    n = max(x.size, 3)
    points = [(x, (n - x.size) / n)]
    for scale, axis in zip(scales, axes.T, strict=True):
        for sign in (-1, 1):
            point = x + sign * np.sqrt(n * max(scale, 0.0)) * axis
            points.append((point if bounds is None else np.clip(point, *bounds), 1 / (2 * n)))
    return points


def samples(
    values: np.ndarray, sds: np.ndarray, weights: np.ndarray, z: np.ndarray = Z
) -> tuple[np.ndarray, np.ndarray]:
    """(values, weights) of the weighted sample: ``values`` and ``sds`` (S, ...) at S parameter points of
    ``weights`` (S,), each point taken at every node z_k (K,): (S·K, ...) values y_s + z_k·sd_s and (S·K,)
    weights w_s/K. A point without an answer (NaN) stays NaN at every node."""
    values, sds = np.asarray(values, float), np.asarray(sds, float)
    spread = values[:, None] + z.reshape((1, -1) + (1,) * (values.ndim - 1)) * sds[:, None]
    weights = np.repeat(np.asarray(weights, float) / z.size, z.size)
    return spread.reshape((-1, *values.shape[1:])), weights


def quantiles(
    values: np.ndarray, weights: np.ndarray, probabilities: tuple[float, ...], missing_high: bool = True
) -> np.ndarray:
    """Weighted quantiles over the first axis of ``values`` (N, ...) with ``weights`` (N,) summing to 1:
    (P, ...) for the ``probabilities``. The sample's sorted values are placed at their cumulative weight
    less half their own and interpolated linearly between. A NaN (no answer) counts as above every value
    (``missing_high``: a time, which without an answer is unbounded) or below every value (a count or a
    share); a quantile that falls among them is NaN."""
    values = np.asarray(values, float)
    filled = np.where(np.isnan(values), np.inf if missing_high else -np.inf, values)
    order = np.argsort(filled, axis=0, kind="stable")
    ordered = np.take_along_axis(filled, order, 0)
    w = np.take_along_axis(
        np.broadcast_to(weights.reshape((-1,) + (1,) * (values.ndim - 1)), values.shape), order, 0
    )
    at = np.cumsum(w, axis=0) - w / 2
    found = []
    for p in probabilities:
        j = np.clip((at < p).sum(axis=0, keepdims=True), 1, len(weights) - 1)
        c0, c1 = np.take_along_axis(at, j - 1, 0)[0], np.take_along_axis(at, j, 0)[0]
        v0, v1 = np.take_along_axis(ordered, j - 1, 0)[0], np.take_along_axis(ordered, j, 0)[0]
        t = np.clip(np.divide(p - c0, c1 - c0, out=np.zeros_like(c0), where=c1 > c0), 0, 1)
        with np.errstate(invalid="ignore"):
            q = np.where(t == 0, v0, np.where(t == 1, v1, v0 + t * (v1 - v0)))
        found.append(np.where(np.isfinite(q), q, np.nan))
    return np.array(found)


def ends(level: float) -> tuple[float, float]:
    """The probabilities of a central band at ``level``: ((1 − level)/2, (1 + level)/2)."""
    return (1 - level) / 2, (1 + level) / 2


def share_within(goal_time: float, mean: np.ndarray, fixed: np.ndarray, shapes: np.ndarray) -> np.ndarray:
    """Each member's share within the goal time (s) at mean response times ``mean`` (M, ...) s, its
    propagation ``fixed`` (M, ...) the fixed part and its gamma ``shapes`` (M,), or ``mean``'s own
    dimensions (a sample's points, each with its own shapes: (S, M, 1)): the catalogue's
    ``share_within_goal``; NaN where a mean is NaN (no answer)."""
    mean = np.asarray(mean, float)
    answered = ~np.isnan(mean)
    share = np.full(mean.shape, np.nan)
    if answered.any():
        shapes = np.asarray(shapes, float)
        shapes = shapes if shapes.ndim == mean.ndim else shapes.reshape((-1,) + (1,) * (mean.ndim - 1))
        shape = np.broadcast_to(shapes, mean.shape)
        share[answered] = evaluate_si(
            "share_within_goal",
            goal=np.asarray(goal_time),
            mean_response=mean[answered],
            fixed_part=np.minimum(np.broadcast_to(fixed, mean.shape), mean * (1 - 1e-9))[answered],
            shape=shape[answered],
        )["share"]
    return share


BRACKET_POINTS = 64  # ratios per round of the critical ratio's search: each round narrows its bracket 63-fold
BRACKET_ROUNDS = 6  # to 63⁻⁶ (1.6·10⁻¹¹) of the first bracket, a log scale: u* to about 10⁻¹⁰ of itself


def critical_ratio(shape: np.ndarray, goal_share: float) -> np.ndarray:
    """Per shape k, the ratio u* = (goal − fixed) / (mean − fixed) at which the share within the goal
    (the catalogue's ``share_within_goal``: a fixed part plus a gamma variable part) is ``goal_share``.
    The share depends on goal, mean and fixed part only through that ratio, and grows with it, so u*
    is found once, on a log scale: each round evaluates the share at BRACKET_POINTS ratios spread over
    the bracket (one call of the catalogue for all of them and every shape) and keeps the two about
    where it reaches the goal share, BRACKET_ROUNDS rounds (to 1.6·10⁻¹¹ of the first bracket, far below
    the 0.1 km an answer is printed to); a member meets the goal exactly where its mean is at most
    fixed + (goal − fixed) / u* (:func:`critical_mean`). Each (shapes, goal share) is searched once per
    process: the goal seek and its band ask for the same."""
    shape = np.asarray(shape, float)
    return _critical_ratios(tuple(shape.ravel().tolist()), float(goal_share)).reshape(shape.shape)


@lru_cache(maxsize=64)
def _critical_ratios(shapes: tuple[float, ...], goal_share: float) -> np.ndarray:
    """:func:`critical_ratio` of each of ``shapes`` (a read-only array: the cache hands out the same one)."""
    shape = np.array(shapes, float)
    # u from 1/1000 up to where the gamma's argument k·u reaches 600: within that the share keeps to the
    # catalogue's own series (numpy), and any goal share below 1 − 1e-100 is reached
    low, high = np.full(shape.shape, np.log(1e-3)), np.log(np.minimum(1e3, 600 / shape))
    spread = np.linspace(0.0, 1.0, BRACKET_POINTS)
    tiled = np.broadcast_to(shape[..., None], (*shape.shape, BRACKET_POINTS))
    for _ in range(BRACKET_ROUNDS):
        log_ratio = low[..., None] + (high - low)[..., None] * spread  # (..., BRACKET_POINTS)
        share = evaluate_si(
            "share_within_goal",
            goal=np.ones(tiled.shape),
            mean_response=np.exp(-log_ratio),
            fixed_part=np.zeros(tiled.shape),
            shape=tiled,
        )["share"]
        # the share grows with u: the ratios below the goal share come first; keep the step it lies in
        first = np.clip((share < goal_share).sum(axis=-1, keepdims=True), 1, BRACKET_POINTS - 1)
        low = np.take_along_axis(log_ratio, first - 1, -1)[..., 0]
        high = np.take_along_axis(log_ratio, first, -1)[..., 0]
    ratio = np.exp((low + high) / 2)
    ratio.flags.writeable = False
    return ratio


def critical_mean(goal_time: float, fixed_part: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """The longest mean response time (s) that still meets the goal: fixed + (goal − fixed) / u* for each
    member's :func:`critical_ratio` (``ratio``, (M,)) and fixed part (M, ...); −inf where the fixed part
    alone reaches the goal time."""
    fixed = np.asarray(fixed_part, float)
    extra = (goal_time - fixed) / ratio.reshape((-1,) + (1,) * (fixed.ndim - 1))
    return np.where(goal_time > fixed, fixed + extra, -np.inf)
