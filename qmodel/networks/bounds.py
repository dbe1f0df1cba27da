"""Throughput and response-time bounds of closed networks: per class for any network, tighter for one class.

Per class c of any closed network (asymptotic bounds; Lazowska et al., QSP
ch. 5, extended per class: R_ck ≤ D_ck (1 + Q_k(N − e_c)) / α_k,min with
Q_k ≤ |N| − 1, and no station serving more than its capacity):

    N_c / (Z_c + D_c^delay + |N| Σ_k D_ck/α_k,min)  ≤  X_c(N)  ≤  min(N_c / (Z_c + D_c'), 1 / max_k D_ck/c_k)

with D_c' = Σ_k D_ck min_j j / α_k(j), the least residence (= D_c unless an ld table serves one job
faster than its base rate).

One class, single-server queues and delays (delay demand folded into Z;
L_i the queue demands, L = Σ L_i, L_max = max L_i), two tighter families:

balanced job bounds (Zahorjan et al. 1982; QSP §5.4)
    N / (L + Z + (N − 1) L_max / (1 + Z / (N L)))  ≤  X(N)  ≤  N / (L + Z + (N − 1) L_avg / (1 + Z / L))

geometric square-root bounds (Casale, Muntz & Serazzi 2008, IEEE Trans. Computers 57(6); the form
that reproduces their Tables IV and V, as transcribed in Octave's qncsgb.m), with
y_i = L_i n / (Z + L + L_max n), Q_i⁻ = (y_i − y_i^{n+1}) / (1 − y_i) at n = N − 1, and Q_i⁺ the same
with Y_i = L_i min(1/L_max, n / (Z + L + σ (n − 1 − Z X_A(n − 1)))), σ = Σ L_i² / L:

    b^± = Z + L + L_max (N − 1) − Σ_{L_i < L_max} (L_max − L_i) Q_i^∓(N − 1)
    X⁻ = 2N / (b⁻ + √(b⁻² − 4 Z L_max (N − 1))),   X⁺ = 2N / (b⁺ + √(b⁺² − 4 Z L_max N))

The tightest of each side is kept, and which one binds is named. With a
multi-server or ld station only the asymptotic bounds hold (D_max uses
demand / capacity; the pessimistic bound serves at the slowest rate).
Response-time bounds: R = N / X − Z.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel.errors import InputError
from qmodel.kernels import Kernel
from qmodel.limits import refuse_too_large
from qmodel.networks.model import Network

GEOMETRIC_RATE = 5.8e8  # queue-populations per second, geometric bounds' compiled loop (5.7e8 to 5.9e8)
# the optimistic bounds, by binding_code: (name, formula); {} is the bottleneck station
UPPER_BOUNDS = (("no queueing", "N/(D + Z)"), ("bottleneck", "1/D_max at {}"),
                ("balanced job", "N/(D + Z + (N−1)·D_avg/(1 + Z/D))"),
                ("geometric", "Casale, Muntz & Serazzi 2008"),
                ("bottleneck, geometric", "Casale, Muntz & Serazzi 2008, past the knee at {}"))


@dataclass(frozen=True)
class Bounds:
    """Single-class bounds at N = populations; the optimistic bound's binding term as a code per N."""

    populations: np.ndarray           # (P,)
    throughput_upper: np.ndarray      # (P,) jobs per second: the tightest optimistic bound
    throughput_lower: np.ndarray      # (P,) the tightest pessimistic bound
    response_lower: np.ndarray        # (P,) seconds in the stations, think time excluded
    response_upper: np.ndarray        # (P,)
    binding_code: np.ndarray          # (P,) index into UPPER_BOUNDS of the bound that sets throughput_upper
    balanced: bool                    # whether balanced job and geometric bounds were applicable
    bottleneck: str                   # the station with the largest demand per server
    knee: float                       # N* = (D + Z) / D_max, where the asymptotes cross

    def binding_at(self, index: int) -> str:
        """The name of the bound that sets throughput_upper at populations[index]."""
        return UPPER_BOUNDS[int(self.binding_code[index])][0]

    def formulas(self, indices) -> list[tuple[str, str]]:
        """Each bound binding at these indices once, in code order: (name, formula)."""
        codes = sorted(set(self.binding_code[np.asarray(indices, dtype=np.int64)].tolist()))
        return [(UPPER_BOUNDS[code][0], UPPER_BOUNDS[code][1].format(self.bottleneck)) for code in codes]

    @property
    def binding(self) -> tuple[str, ...]:
        return tuple(self.binding_at(i) for i in range(self.populations.size))


def closed_bounds(net: Network, populations: np.ndarray | int) -> Bounds:
    """Asymptotic, balanced job and geometric bounds of a single-class closed network (module docstring).

    Memory O(P + K); time P·K for the geometric bounds, refused with its estimate where too long.
    """
    if net.demands.shape[0] != 1:
        raise InputError("classes", len(net.classes), "one class: class_bounds gives per-class bounds")
    n = np.atleast_1d(np.asarray(populations, float))
    net = net.within(int(n.max()))
    demand = net.demands[0]
    delay = net.infinite
    total = float((demand * _fastest(net))[~delay].sum())
    think = float(net.think_times[0] + demand[delay].sum())
    per_server = np.where(delay, 0.0, demand / np.where(delay, 1.0, net.capacities))
    bottleneck = int(np.argmax(per_server))
    d_max = float(per_server[bottleneck])
    if d_max == 0:
        raise InputError("demand", "0 at every queueing station", "a positive demand somewhere, or the "
                         "network has no queueing to bound")
    light = n / (total + think)
    heavy = np.full(n.shape, 1 / d_max)
    upper = np.minimum(light, heavy)
    code = np.where(heavy <= light, 1, 0).astype(np.int8)
    slowest = np.array([1.0 if s.infinite else min(s.rate_table) for s in net.stations])
    lower = n / (n * float((demand / slowest)[~delay].sum()) + think)
    balanced = _balanced(net)
    if balanced:
        queues = demand[~delay]
        refuse_too_large(*estimate_bounds(net, n.size), f"bounds of {queues.size:,} queues at {n.size:,} "
                         "populations", "the populations you need (qmodel mva --at N1,N2,... with a table "
                         "or CSV), or a smaller N")
        bjb_upper = n / (total + think + (n - 1) * queues.mean() / (1 + think / total))
        bjb_lower = n / (total + think + (n - 1) * d_max / (1 + think / (n * total)))
        gb_lower, gb_upper = geometric_bounds(queues, think, n)
        geometric = np.where(n * d_max > total + think, 4, 3)       # past the knee the bottleneck governs
        for candidate, label in ((bjb_upper, 2), (gb_upper, geometric)):
            code = np.where(candidate < upper, label, code).astype(np.int8)
            upper = np.minimum(upper, candidate)
        lower = np.maximum(lower, np.maximum(bjb_lower, gb_lower))
    z = float(net.think_times[0])
    return Bounds(populations=n, throughput_upper=upper, throughput_lower=lower,
                  response_lower=n / upper - z, response_upper=n / lower - z, binding_code=code,
                  balanced=balanced, bottleneck=net.station_names[bottleneck], knee=(total + think) / d_max)


def estimate_bounds(net: Network, populations: int) -> tuple[float, float]:
    """(bytes, seconds) :func:`closed_bounds` takes at this many populations: a dozen arrays of them, and
    the geometric bounds' loop over the queues below the largest demand where they apply
    (:func:`geometric_seconds`)."""
    queues = net.demands[0][~net.infinite]
    light = int((queues < queues.max(initial=0)).sum()) if _balanced(net) else 0
    return 120.0 * populations + 24.0 * queues.size, geometric_seconds(light, populations)


def _balanced(net: Network) -> bool:
    """Whether balanced job and geometric bounds apply: single-server queues and delays only."""
    return not any(s.load_dependent or (not s.infinite and s.capacity != 1) for s in net.stations)


def geometric_bounds(loadings: np.ndarray, think: float, populations: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(X⁻, X⁺) of Casale, Muntz & Serazzi (2008) for single-server queues with these loadings (docstring).

    One population at a time: O(P + K) memory and P·K time (GEOMETRIC_RATE; estimate with
    :func:`geometric_seconds`), whatever P and K.
    """
    loadings = np.ascontiguousarray(np.sort(np.asarray(loadings, float))[::-1])   # largest first
    n = np.ascontiguousarray(np.atleast_1d(populations), float)
    lower, upper = np.empty(n.size), np.empty(n.size)
    GEOMETRIC_KERNEL(float(n.size) * loadings.size, loadings, float(think), n, lower, upper)
    return lower, upper


def geometric_seconds(stations: int, populations: int) -> float:
    """Estimated seconds of :func:`geometric_bounds` for this many queues and populations."""
    return stations * populations / GEOMETRIC_RATE


def _geometric_kernel(loadings, think, populations, lower, upper):
    """The bounds of the module docstring at each population (loadings largest first)."""
    total = loadings.sum()
    top = loadings[0]
    sigma = (loadings ** 2).sum() / total
    first = 0                                                        # the queues below the largest
    while first < loadings.size and loadings[first] == top:
        first += 1
    for p in range(populations.size):
        n = populations[p]
        previous = n - 1.0                                           # Q bounds at N − 1
        scale = previous / (think + total + top * previous)
        aba = min(1.0 / top, (previous - 1.0) / (total + think)) if previous > 1.0 else 0.0
        denominator = think + total + sigma * (previous - 1.0 - think * aba)
        estimate = previous / denominator if previous > 0.0 else 0.0
        big = min(1.0 / top, estimate)
        negligible = np.exp(-40.0 / previous) if previous > 0.0 else 1.0   # y^n < e^−40 y: y − y^(n+1) = y
        b_lower = think + total + top * previous - _queue_sum(loadings, first, scale, previous, negligible)
        b_upper = think + total + top * previous - _queue_sum(loadings, first, big, previous, negligible)
        lower[p] = 2.0 * n / (b_lower + np.sqrt(max(b_lower ** 2 - 4.0 * think * top * previous, 0.0)))
        upper[p] = 2.0 * n / (b_upper + np.sqrt(max(b_upper ** 2 - 4.0 * think * top * n, 0.0)))


def _queue_sum(loadings, first, scale, previous, negligible):
    """Σ_{L_i < L_max} (L_max − L_i) Q_i at y_i = L_i·scale, Q_i = (y_i − y_i^(n+1)) / (1 − y_i), loadings
    largest first from ``first``: the y_i ≥ ``negligible`` (a prefix) with the power, the rest without."""
    top = loadings[0]
    total = 0.0
    i = first
    while i < loadings.size and loadings[i] * scale >= negligible:
        y = loadings[i] * scale
        total += (top - loadings[i]) * (y - y ** (previous + 1.0)) / (1.0 - y)
        i += 1
    return total + _light_queue_sum(loadings, i, scale)


def _light_queue_sum(loadings, start, scale):
    """Σ (L_max − L_i) y_i / (1 − y_i) from ``start`` on (y_i < 1: no power left), two terms over one
    division (a/u + b/v = (a v + b u)/(u v): the divisions are the cost) in a loop the compiler
    vectorises (fastmath: the sum in any order)."""
    top = loadings[0]
    total = 0.0
    pairs = (loadings.size - start) // 2
    for k in range(pairs):
        i = start + 2 * k
        y, z = loadings[i] * scale, loadings[i + 1] * scale
        u, v = 1.0 - y, 1.0 - z
        total += ((top - loadings[i]) * y * v + (top - loadings[i + 1]) * z * u) / (u * v)
    for i in range(start + 2 * pairs, loadings.size):
        y = loadings[i] * scale
        total += (top - loadings[i]) * y / (1.0 - y)
    return total


@dataclass(frozen=True)
class ClassBounds:
    """Per-class asymptotic bounds at one population vector: X [1/s] and R [s] per class."""

    throughput_upper: np.ndarray      # (C,)
    throughput_lower: np.ndarray      # (C,)
    response_lower: np.ndarray        # (C,)
    response_upper: np.ndarray        # (C,)


def class_bounds(net: Network, populations: np.ndarray) -> ClassBounds:
    """Per-class asymptotic bounds of a closed network with any stations (module docstring)."""
    counts = np.asarray(populations, float)
    net = net.within(int(counts.sum()))
    demand = net.demands
    delay = net.infinite
    capacity = np.where(delay, np.inf, net.capacities)
    slowest = np.array([1.0 if s.infinite else min(s.rate_table) for s in net.stations])
    busiest = np.where(delay, 0.0, demand / capacity).max(axis=1)
    with np.errstate(divide="ignore"):
        upper = np.minimum(counts / (net.think_times + (demand * _fastest(net)).sum(axis=1)),
                           np.where(busiest > 0, 1 / busiest, np.inf))
    lower = counts / (net.think_times + demand[:, delay].sum(axis=1)
                      + counts.sum() * (demand[:, ~delay] / slowest[~delay]).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        response_lower = np.where(counts > 0, counts / upper - net.think_times, 0.0)
        response_upper = np.where(counts > 0, counts / lower - net.think_times, 0.0)
    return ClassBounds(upper, lower, response_lower, response_upper)


def _fastest(net: Network) -> np.ndarray:
    """Per station, the least residence per unit of demand: min_j j/α(j) (1: delay, queue, c servers)."""
    return np.array([1.0 if s.infinite else min(j / rate for j, rate in enumerate(s.rate_table, 1))
                     for s in net.stations])


GEOMETRIC_KERNEL = Kernel(_geometric_kernel, Kernel(_queue_sum, Kernel(_light_queue_sum, fastmath=True)))
