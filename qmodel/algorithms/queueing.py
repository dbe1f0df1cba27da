"""Stable recursions for the queues whose closed forms overflow: Erlang B, Erlang C, M/M/c/K.

All functions take numpy arrays (a scalar is a 0-d array), broadcast them, and
never form a factorial or a power of the load, so they stay accurate for
thousands of servers and loads close to saturation. Inputs are assumed valid
(the catalogue's domains and constraints are checked before these run).

A recursion takes one step per server (stage, state); past
:data:`RECURSION_LIMIT` of them, Erlang B and C and the Erlang distribution
are computed from the regularized incomplete gamma function instead (scipy,
imported only then, O(1) per element), and the M/M/c/K chain, which has no
such form here, is refused with its estimate before it starts.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from qmodel.limits import refuse_long_loop

_RESCALE_ABOVE = 1e250
RECURSION_LIMIT = 1000  # servers or stages: up to here a recursion (numpy only), past it a closed form
_SERIES_LARGEST_X = 700.0  # e^(−x) is a normal double up to about x = 708


def _by_size(
    sizes: np.ndarray, small: Callable[..., np.ndarray], large: Callable[..., np.ndarray], *arrays: np.ndarray
) -> np.ndarray:
    """``small`` on the elements whose size is at most RECURSION_LIMIT, ``large`` on the others
    (1-D arrays each), put back together in the broadcast shape."""
    sizes, *broadcast = np.broadcast_arrays(sizes, *arrays)
    shape = sizes.shape
    sizes, flat = sizes.ravel(), [a.ravel() for a in broadcast]
    few = ~(sizes > RECURSION_LIMIT)
    if few.all():
        return small(sizes, *flat).reshape(shape)
    result = np.empty(sizes.size)
    result[few] = small(sizes[few], *(a[few] for a in flat))
    result[~few] = large(sizes[~few], *(a[~few] for a in flat))
    return result.reshape(shape)


def erlang_b(servers: ArrayLike, offered_load: ArrayLike) -> np.ndarray:
    """Erlang B blocking probability B(c, a) for c servers and offered load a (erlangs).

    Recursion B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)) (Jagerman 1974): every
    step is a ratio of positive numbers, so there is no overflow or cancellation.
    Cost: max(c) vectorized steps, for c up to RECURSION_LIMIT; past it
    :func:`_erlang_b_large`, O(1) per element.
    """
    return _by_size(
        np.asarray(servers, float), _erlang_b_recursion, _erlang_b_large, np.asarray(offered_load, float)
    )


def _erlang_b_recursion(servers: np.ndarray, load: np.ndarray) -> np.ndarray:
    """Erlang B by the Jagerman recursion, 1-D arrays."""
    # largest server counts first: the elements still recursing at step k are a prefix
    order = np.argsort(-servers, axis=None, kind="stable")
    counts = servers.ravel()[order]
    loads = load.ravel()[order]
    blocking = np.ones(counts.size)
    carried, denominator = np.empty(counts.size), np.empty(counts.size)
    final = np.ones(counts.size)  # B(0) = 1 for zero servers
    last = counts.size - 1  # last element not yet finished
    while last >= 0 and counts[last] < 1:
        last -= 1
    b, a, t, d = blocking, loads, carried, denominator
    for k in range(1, int(counts.max(initial=0)) + 1):
        np.multiply(a, b, out=t)  # a·B(k−1)
        np.add(t, k, out=d)  # k + a·B(k−1)
        np.divide(t, d, out=b)
        while last >= 0 and counts[last] < k + 1:  # these have their B(c): keep it
            final[last] = blocking[last]
            last -= 1
        if 4 * (last + 1) < 3 * b.size:  # drop the finished quarter from the work
            b, a, t, d = blocking[: last + 1], loads[: last + 1], carried[: last + 1], denominator[: last + 1]
    result = np.empty(counts.size)
    result[order] = final
    return result


def _erlang_b_large(servers: np.ndarray, load: np.ndarray) -> np.ndarray:
    """Erlang B for many servers, 1-D arrays: B(c, a) = π(c) / Σ_{k≤c} π(k) for the Poisson(a)
    probabilities π(k) = e^(−a)·a^k/k!, the numerator in log space (ln π(c) = c·ln a − a − ln c!)
    and the denominator the regularized upper incomplete gamma Q(c + 1, a), both O(1) (scipy).

    Where a is so far above c that Q underflows, the top-down series
    1/B = Σ_j Π_{i<j} (c − i)/a is summed instead: its terms fall at least as
    (c/a)^j, so 40/(1 − c/a) of them reach double precision; that count is
    estimated (and refused if too large) before the loop.
    """
    from scipy import special

    with np.errstate(under="ignore", divide="ignore", invalid="ignore"):  # 0/0 where Q underflows
        cumulative = special.gammaincc(servers + 1, load)
        blocking = np.exp(special.xlogy(servers, load) - load - special.gammaln(servers + 1)) / cumulative
    underflow = ~(cumulative > 1e-200)
    if underflow.any():
        c, a = servers[underflow], load[underflow]
        steps = float(np.max(np.minimum(c, np.ceil(40 / (1 - c / a)))))
        refuse_long_loop(steps, c.size, "servers", "fewer servers, or an offered load nearer the servers")
        term, total = np.ones(c.size), np.ones(c.size)
        for j in range(1, int(steps) + 1):
            term = term * np.maximum(c - j + 1, 0.0) / a
            total = total + term
        blocking[underflow] = 1 / total
    return blocking


def erlang_c(servers: ArrayLike, offered_load: ArrayLike) -> np.ndarray:
    """Erlang C probability of waiting C(c, a) for an M/M/c queue, a < c.

    C = c·B / (c − a·(1 − B)) with B = erlang_b(c, a); written as
    c·B / ((c − a) + a·B) so that the denominator has no cancellation.
    """
    servers = np.asarray(servers, float)
    load = np.asarray(offered_load, float)
    blocking = erlang_b(servers, load)
    return servers * blocking / ((servers - load) + load * blocking)


def _mmck_moments(servers: ArrayLike, capacity: ArrayLike, offered_load: ArrayLike):
    """(p_K, L, Lq) of the M/M/c/K birth-death chain by a scaled forward recursion.

    Unnormalised state weights w_0 = 1, w_n = w_{n−1}·a / min(n, c) for n ≤ K.
    The running sums are rescaled whenever they grow past 1e250, so the ratios
    p_K = w_K / Σw, L = Σ n·w_n / Σw and Lq = Σ (n − c)⁺·w_n / Σw never
    overflow; Lq is summed directly, not as a difference, so it keeps its
    relative accuracy at light load.
    """
    servers, capacity, load = np.broadcast_arrays(
        np.asarray(servers, float), np.asarray(capacity, float), np.asarray(offered_load, float)
    )
    refuse_long_loop(
        float(capacity.max(initial=0)),
        capacity.size,
        "capacity",
        "a smaller capacity (the M/M/c/K chain takes one step per place)",
    )
    weight = np.ones(servers.shape)
    total = np.ones(servers.shape)
    weighted = np.zeros(servers.shape)
    queued = np.zeros(servers.shape)
    for n in range(1, int(capacity.max(initial=0)) + 1):
        active = n <= capacity
        weight = np.where(active, weight * load / np.minimum(n, servers), weight)
        total = np.where(active, total + weight, total)
        weighted = np.where(active, weighted + n * weight, weighted)
        queued = np.where(active, queued + np.maximum(n - servers, 0.0) * weight, queued)
        scale = np.where(total > _RESCALE_ABOVE, total, 1.0)
        weight, total, weighted, queued = weight / scale, total / scale, weighted / scale, queued / scale
    return weight / total, weighted / total, queued / total


def mmck_blocking(servers: ArrayLike, capacity: ArrayLike, offered_load: ArrayLike) -> np.ndarray:
    """M/M/c/K probability p_K that an arrival finds the system full (c ≤ K)."""
    return _mmck_moments(servers, capacity, offered_load)[0]


def mmck_mean_number(servers: ArrayLike, capacity: ArrayLike, offered_load: ArrayLike) -> np.ndarray:
    """M/M/c/K mean number in the system L = Σ n·p_n (c ≤ K)."""
    return _mmck_moments(servers, capacity, offered_load)[1]


def mmck_mean_queue(servers: ArrayLike, capacity: ArrayLike, offered_load: ArrayLike) -> np.ndarray:
    """M/M/c/K mean number waiting Lq = Σ (n − c)·p_n over n > c (c ≤ K)."""
    return _mmck_moments(servers, capacity, offered_load)[2]


STATES_PER_BLOCK = 1 << 20  # states per block of elements: about 8 MB per array
_LEAST_LOG_WEIGHT = -746.0  # exp of less is 0.0 in double precision (the least subnormal is about e^-744.4)


def finite_source_queue(
    servers: ArrayLike, sources: ArrayLike, service_ratio: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """M/M/c//K (machine-repairman) queue: c ≥ 1 servers, K ≥ 0 sources (whole numbers; anything else
    raises ValueError) each requesting at rate 1/T.

    ``service_ratio`` is r = S / T, the mean service time over a source's mean time
    between requests. State weights (Kleinrock 1975, §3.9; Bolch et al., §6.6):

        w_0 = 1,   w_j = w_{j−1} · (K − j + 1) · r / min(j, c)     j = 1..K

    Returns (wait probability, mean number waiting, utilization per server):
    the wait probability is the chance an arriving request finds all c busy,
    by the arrival theorem the state of the same system with K − 1 sources,
    Σ_{j≥c} p_j^{(K−1)}; the mean number waiting is Σ (j − c)⁺ p_j; the
    utilization is Σ min(j, c) p_j / c. The delay stays finite for any load,
    where an open Erlang C queue goes unstable: a finite population cannot
    queue without bound.

    The weights are summed in log space, all states at once (log w_j is a
    cumulative sum; each sum is taken relative to its largest term, so
    nothing overflows and no probability is formed as 1 − Σ). Cost: K + 1
    states per element, one array operation each, over blocks of elements
    holding about a million states each, so memory stays bounded (tens of MB)
    and time linear however many elements there are.
    """
    servers, sources, ratio = np.broadcast_arrays(
        np.asarray(servers, float), np.asarray(sources, float), np.asarray(service_ratio, float)
    )
    if not (np.all(servers >= 1) and np.all(sources >= 0)) or np.any(servers % 1) or np.any(sources % 1):
        raise ValueError("finite_source_queue: servers ≥ 1 and sources ≥ 0 are whole numbers")
    shape = servers.shape
    servers, sources, ratio = (np.ravel(a) for a in (servers, sources, ratio))
    block = max(1, STATES_PER_BLOCK // (int(sources.max(initial=0)) + 1))
    parts = [
        _finite_source_block(servers[i : i + block], sources[i : i + block], ratio[i : i + block])
        for i in range(0, servers.size, block)
    ]
    wait, waiting, utilization = (np.concatenate(part).reshape(shape) for part in zip(*parts, strict=True))
    return wait, waiting, utilization


_FIRST_STATES = 64  # states of the first stretch _finite_source_block weighs; each next stretch twice as many
# a state this far (log) below the largest weight, past it, ends the weighing: the states after it weigh
# less still, together under e^-50 · K / 50 of the total (the steps fall: a geometric bound), under
# 10^-17 of it for any K below 10^6, far below a double's precision in every sum
_NEGLIGIBLE_LOG_WEIGHT = -50.0


def _finite_source_block(
    servers: np.ndarray, sources: np.ndarray, ratio: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``finite_source_queue`` on 1-D arrays, a row per element (its states contiguous, so the cumulative
    sum runs along memory). The logs of the whole numbers K − j + 1 and min(j, c) are read from one table,
    not taken per state. The weights of the system with K − 1 sources are those with K times (K − j) / K
    (the product of the steps telescopes), so one set of weights serves both.

    The states are weighed in stretches (:data:`_FIRST_STATES`, then twice as many each time), until every
    element is past its largest weight and its last is e^50 below it (:data:`_NEGLIGIBLE_LOG_WEIGHT`), or
    has no states left: the step log((K − j + 1)·r / min(j, c)) falls as j grows, so the log weights are
    concave, every later state weighs less still, and by the last step's slope (at most −50 / the states
    since the largest) all of them together weigh under e^-50·K/50 of the total. With many sources, most
    states are never weighed (2,400 terminals at a light load: 64; near the subchannels' saturation a few
    hundred). The cumulative sum runs on from each stretch's last weight, in the same order as over all
    states at once."""
    top = int(sources.max(initial=0))
    log_of = np.log(np.maximum(np.arange(top + 2), 1))  # log m at index m (m ≥ 1)
    count, serving = sources.astype(np.int64)[:, None], servers.astype(np.int64)[:, None]
    with np.errstate(divide="ignore"):
        log_ratio = np.log(ratio)[:, None]  # −inf where r = 0: every state but j = 0 weighs 0
    stretches = [np.zeros((servers.size, 1))]  # log w_0 = 0
    largest = np.zeros(servers.size)
    first, size = 1, _FIRST_STATES
    while first <= top:
        states = np.arange(first, min(top + 1, first + size))
        steps = log_of[np.maximum(count - states + 1, 1)] - log_of[np.minimum(states, serving)] + log_ratio
        stretch = np.cumsum(np.concatenate([stretches[-1][:, -1:], steps], axis=1), axis=1)[:, 1:]
        stretch[states > count] = -np.inf  # states beyond an element's own K do not exist
        stretches.append(stretch)
        largest = np.maximum(largest, stretch.max(axis=1))
        falling = (steps[:, -1] <= 0) | (states[-1] >= count[:, 0])
        if (falling & (stretch[:, -1] - largest <= _NEGLIGIBLE_LOG_WEIGHT)).all():
            break
        first, size = states[-1] + 1, 2 * size
    log_weight = np.concatenate(stretches, axis=1)
    states = np.arange(log_weight.shape[1])
    log_weight -= log_weight.max(axis=1, keepdims=True)
    # the states past the last whose weight is still a double above 0 in some element add exactly 0 to
    # every sum below: they are left out (with many sources and a light load, most of them)
    kept = int(np.flatnonzero((log_weight > _LEAST_LOG_WEIGHT).any(axis=0))[-1]) + 1
    states = states[:kept]
    weight = np.exp(log_weight[:, :kept])
    total = weight.sum(axis=1)
    queued = (np.maximum(states - serving, 0) * weight).sum(axis=1) / total
    utilization = (np.minimum(states, serving) * weight).sum(axis=1) / total / servers
    # K − 1 sources (what an arriving request sees): the states up to K − 1, weighted by (K − j)
    fewer = weight * (count - states)  # 0 at j = K, and beyond it where the weight is 0
    wait_probability = np.where(states >= serving, fewer, 0.0).sum(axis=1) / fewer.sum(axis=1)
    return wait_probability, queued, utilization


def erlang_cdf(shape: ArrayLike, x: ArrayLike) -> np.ndarray:
    """Erlang-k distribution function P(k, x) = e^(−x) Σ_{i≥k} x^i / i! = 1 − e^(−x) Σ_{i<k} x^i / i!.

    x ≥ 0 in units of one phase's mean, k ≥ 1 whole (Kleinrock 1975, §4.2).
    Each side is summed where it is the smaller: below the mean (x < k) the
    series Σ_{i≥k} directly, so a tiny probability keeps its digits instead of
    being 1 − (1 − ε); above it 1 minus the finite head. Terms are built one
    from the last (t_i = t_{i−1}·x/i), never as a power over a factorial.
    Past RECURSION_LIMIT stages, or past x = 700 (where e^(−x) underflows and the
    series would give nan or 1), the regularized lower incomplete gamma P(k, x)
    itself (scipy), O(1) per element.
    """
    shape, x = np.broadcast_arrays(np.asarray(shape, float), np.asarray(x, float))
    size = np.where(x > _SERIES_LARGEST_X, np.inf, shape)
    return _by_size(
        size, lambda _, k, t: _erlang_cdf_series(k, t), lambda _, k, t: _erlang_cdf_large(k, t), shape, x
    )


def _erlang_cdf_large(shape: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The Erlang-k distribution function for many stages: the regularized P(k, x) (scipy)."""
    from scipy import special

    return special.gammainc(shape, x)


def _erlang_cdf_series(shape: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The Erlang-k distribution function summed term by term, 1-D arrays."""
    below = x < shape
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        term = np.exp(-x)
        head = term.copy()
        for i in range(1, int(shape.max(initial=1))):
            term = term * x / i
            head = np.where(i < shape, head + term, head)
        # term is now x^(k−1) e^(−x)/(k−1)! where i reached k − 1; continue the series from i = k
        term = np.where(below, np.exp(-x) * _power_over_factorial(x, shape), 0.0)
        tail = term.copy()
        extra = int(np.max(np.where(below, shape + 10 * np.sqrt(shape) + 40, 0), initial=0))
        for i in range(1, extra + 1):
            term = term * x / (shape + i)
            tail = tail + term
    return np.where(below, tail, 1.0 - head)


def _power_over_factorial(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """x^k / k!, built as a product of x/j (no overflow before the exponential damps it)."""
    result = np.ones(np.broadcast(x, k).shape)
    for j in range(1, int(np.max(k, initial=0)) + 1):
        result = np.where(j <= k, result * x / j, result)
    return result


_GAMMA_TERMS = 4000  # series or continued-fraction steps at most: enough for any shape up to RECURSION_LIMIT


def gamma_cdf(shape: ArrayLike, x: ArrayLike) -> np.ndarray:
    """Gamma distribution function: the regularized lower incomplete gamma P(a, x) = γ(a, x) / Γ(a).

    x ≥ 0 in units of the scale (a gamma variable of mean m and shape a: P(T ≤ t) = P(a, a·t/m)),
    a > 0, whole or not (Abramowitz and Stegun 6.5.1). A whole shape is the Erlang-k distribution and
    takes :func:`erlang_cdf` itself, so it gives exactly the Erlang answer. Otherwise, below x = a + 1
    the series P = xᵃ e⁻ˣ / Γ(a + 1) · Σ xⁿ / ((a + 1)…(a + n)) (A&S 6.5.29), above it 1 − Q with Q by
    the continued fraction of A&S 6.5.31 (modified Lentz), each where it converges fast and keeps its
    digits (a small P summed directly, a small Q the same); the prefactor in logs (math.lgamma), so
    nothing overflows. Past RECURSION_LIMIT the regularized P(a, x) of scipy, O(1) per element.
    """
    shape, x = np.broadcast_arrays(np.asarray(shape, float), np.asarray(x, float))
    out_shape = shape.shape
    shape, x = shape.ravel(), x.ravel()
    result = np.empty(shape.size)
    whole = shape == np.round(shape)
    result[whole] = erlang_cdf(shape[whole], x[whole])
    rest = ~whole
    if rest.any():
        result[rest] = _by_size(
            shape[rest], _gamma_cdf_small, lambda _, a, t: _erlang_cdf_large(a, t), shape[rest], x[rest]
        )
    return result.reshape(out_shape)


def _gamma_cdf_small(_: np.ndarray, shape: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) for a shape up to RECURSION_LIMIT, 1-D arrays: the series below a + 1, 1 − Q above."""
    shapes, which = np.unique(shape, return_inverse=True)  # a few shapes over many elements: lgamma once each
    log_gamma = np.array([math.lgamma(a) for a in shapes])[which]
    with np.errstate(divide="ignore", under="ignore", over="ignore", invalid="ignore"):
        log_front = shape * np.log(x) - x - log_gamma  # log(xᵃ e⁻ˣ / Γ(a)); −inf at x = 0
        series = x < shape + 1
        # series: Σ_{n≥0} xⁿ / (a (a + 1) … (a + n)), times xᵃ e⁻ˣ / Γ(a)
        # each element stops at its own convergence, so its value does not depend on the others in the
        # array; each step computes only the elements still summing (``live``)
        term = np.where(series, 1 / shape, 0.0)
        total = term.copy()
        live = np.flatnonzero(series)
        for n in range(1, _GAMMA_TERMS):
            if not live.size:
                break
            term[live] = term[live] * x[live] / (shape[live] + n)
            total[live] = total[live] + term[live]
            live = live[term[live] > 1e-17 * total[live]]
        lower = np.exp(log_front) * total
        # continued fraction for Q (modified Lentz): Q = xᵃ e⁻ˣ / Γ(a) · 1 / (b₀ − a₁/(b₁ − …))
        b = np.where(series, 1.0, x + 1 - shape)
        c = np.full(x.size, 1e300)
        d = 1 / b
        fraction = d.copy()
        live = np.flatnonzero(~series)
        for n in range(1, _GAMMA_TERMS):
            if not live.size:
                break
            a_n = -n * (n - shape[live])
            b[live] = b[live] + 2
            d_live = a_n * d[live] + b[live]
            d_live = np.where(np.abs(d_live) < 1e-300, 1e-300, d_live)
            c_live = b[live] + a_n / c[live]
            c[live] = np.where(np.abs(c_live) < 1e-300, 1e-300, c_live)
            d[live] = 1 / d_live
            step = d[live] * c[live]
            fraction[live] = fraction[live] * step
            live = live[np.abs(step - 1) > 1e-16]
        upper = np.exp(log_front) * fraction
    return np.where(x <= 0, 0.0, np.where(series, np.minimum(lower, 1.0), 1 - np.where(series, 0.0, upper)))


def power_knee(load: ArrayLike, response_time: ArrayLike) -> int | None:
    """The knee of a response-time curve: the point of most power, load / response time.

    Kleinrock's power P = X / R (throughput over response time; Kleinrock 1979, "Power and deterministic
    rules of thumb for probabilistic problems in computer communications") is greatest at the knee of the
    response-time curve, whose throughput Jain calls the knee capacity (The Art of Computer Systems
    Performance Analysis, 1991, §3.3). For M/M/1, P = λ(1 − λS)/S is greatest at 50% busy, where the
    response time is twice the service time.

    ``load`` (a rate, any unit) and ``response_time`` (any time unit) are the points of a curve; points
    whose response time is not finite and positive are left out. Returns the index of the greatest power,
    or None where no point has one. The index of the first or last point means the knee lies at or
    beyond that end of the points given.
    """
    load = np.asarray(load, float).ravel()
    response_time = np.asarray(response_time, float).ravel()
    usable = np.isfinite(load) & np.isfinite(response_time) & (response_time > 0)
    if not usable.any():
        return None
    power = np.where(usable, load / np.where(usable, response_time, 1.0), -np.inf)
    return int(np.argmax(power))
