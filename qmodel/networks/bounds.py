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

The sums over the queues take K steps; they are computed at a fixed grid of
populations (every N up to 10,000, then one in each 0.1%) and each bound
between two grid points takes the sum that loosens it (both sums grow with
N), so all the bounds of N = 1..P cost O(P + K·(10,000 + log P)), not O(P·K).
The tightest of each side is kept, and which one binds is named. With a
multi-server or ld station only the asymptotic bounds hold (D_max uses
demand / capacity; the pessimistic bound serves at the slowest rate).
Response-time bounds: R = N / X − Z.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from qmodel.errors import InputError
from qmodel.kernels import Kernel
from qmodel.limits import refuse_too_large
from qmodel.networks.model import Network

GEOMETRIC_RATE = 5.8e8  # queue-populations per second, geometric bounds' compiled loop (5.7e8 to 5.9e8)
# per population, the closed forms' pass and its arrays: 1e6 populations of 1,000 queues took 0.11-0.20 s
# CPU with the sums (25 ms of it) at a load of 15 on 2 cores
SECONDS_PER_BOUND = 1.2e-7
# the optimistic bounds, by binding_code: (name, formula); {} is the bottleneck station
UPPER_BOUNDS = (
    ("no queueing", "N/(D + Z)"),
    ("bottleneck", "1/D_max at {}"),
    ("balanced job", "N/(D + Z + (N−1)·D_avg/(1 + Z/D))"),
    ("geometric", "Casale, Muntz & Serazzi 2008"),
    ("bottleneck, geometric", "Casale, Muntz & Serazzi 2008, past the knee at {}"),
)


@dataclass(frozen=True)
class Bounds:
    """Single-class bounds at N = populations; the optimistic bound's binding term as a code per N."""

    populations: np.ndarray  # (P,)
    throughput_upper: np.ndarray  # (P,) jobs per second: the tightest optimistic bound
    throughput_lower: np.ndarray  # (P,) the tightest pessimistic bound
    response_lower: np.ndarray  # (P,) seconds in the stations, think time excluded
    response_upper: np.ndarray  # (P,)
    binding_code: np.ndarray  # (P,) index into UPPER_BOUNDS of the bound that sets throughput_upper
    balanced: bool  # whether balanced job and geometric bounds were applicable
    bottleneck: str  # the station with the largest demand per server
    knee: float  # N* = (D + Z) / D_max, where the asymptotes cross

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

    Memory O(P + K); time O(P + K·(GRID_EXACT + log P)) (the geometric bounds' grid), refused with its
    estimate where too long.
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
        raise InputError(
            "demand",
            "0 at every queueing station",
            "a positive demand somewhere, or the network has no queueing to bound",
        )
    slowest = np.array([1.0 if s.infinite else min(s.rate_table) for s in net.stations])
    slow = float((demand / slowest)[~delay].sum())
    balanced = _balanced(net)
    queues = demand[~delay] if balanced else np.zeros(0)
    if balanced:
        refuse_too_large(
            *estimate_bounds(net, n.size),
            f"bounds of {queues.size:,} queues at {n.size:,} populations",
            "the populations you need (qmodel mva --at N1,N2,... with a table or CSV), or a smaller N",
        )
    upper, lower, code = np.empty(n.size), np.empty(n.size), np.empty(n.size, dtype=np.int8)
    _bounds(n, queues, think, (total, d_max, slow), balanced, upper, lower, code)
    z = float(net.think_times[0])
    return Bounds(
        populations=n,
        throughput_upper=upper,
        throughput_lower=lower,
        response_lower=n / upper - z,
        response_upper=n / lower - z,
        binding_code=code,
        balanced=balanced,
        bottleneck=net.station_names[bottleneck],
        knee=(total + think) / d_max,
    )


def estimate_bounds(net: Network, populations: int) -> tuple[float, float]:
    """(bytes, seconds) :func:`closed_bounds` takes at this many populations: a dozen arrays of them, and
    the geometric bounds' sums over the queues below the largest demand where they apply
    (:func:`geometric_seconds`)."""
    queues = net.demands[0][~net.infinite]
    light = int((queues < queues.max(initial=0)).sum()) if _balanced(net) else 0
    return 120.0 * populations + 24.0 * queues.size, geometric_seconds(light, populations)


def _balanced(net: Network) -> bool:
    """Whether balanced job and geometric bounds apply: single-server queues and delays only."""
    return not any(s.load_dependent or (not s.infinite and s.capacity != 1) for s in net.stations)


def geometric_bounds(
    loadings: np.ndarray, think: float, populations: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(X⁻, X⁺) of Casale, Muntz & Serazzi (2008) for single-server queues with these loadings (docstring).

    The queue sums Σ (L_max − L_i) Q_i^∓ take K steps each; they are computed at the grid's populations
    only (every one up to GRID_EXACT, then one in each 0.1%: grid_population), so the work is
    O(K·(GRID_EXACT + log N) + P) whatever P. Each sum grows with n (both its y_i and its number of
    powers do: y_i rises with n for either bound, see the module docstring), so between two grid
    populations X⁻ takes the sum at the lower one and X⁺ at the upper one: each bound loosened, never
    crossed (exact at the grid's populations, every one up to GRID_EXACT).
    """
    n = np.atleast_1d(np.asarray(populations, float))
    lower, upper = np.empty(n.size), np.empty(n.size)
    _bounds(n, np.asarray(loadings, float), think, None, True, upper, lower, np.empty(n.size, dtype=np.int8))
    return lower, upper


def _bounds(
    n: np.ndarray,
    queues: np.ndarray,
    think: float,
    asymptotic: tuple[float, float, float] | None,
    balanced: bool,
    upper: np.ndarray,
    lower: np.ndarray,
    code: np.ndarray,
) -> None:
    """The tightest bounds at each population into ``upper``, ``lower`` and ``code`` (closed_bounds), or
    the geometric bounds alone (``asymptotic`` None): one pass over the populations (BOUNDS_KERNEL),
    the geometric bounds' queue sums computed at the grid's populations (geometric_bounds)."""
    loadings = np.ascontiguousarray(np.sort(queues)[::-1])  # largest first
    grid = _grid(n) if balanced else np.zeros(0)
    sums = np.empty((2, grid.size))
    if balanced:
        GEOMETRIC_KERNEL(float(grid.size) * loadings.size, loadings, float(think), grid, sums[0], sums[1])
    total, d_max, slow = asymptotic if asymptotic is not None else (0.0, 0.0, 0.0)
    BOUNDS_KERNEL(
        float(n.size) * 8,
        n,
        loadings,
        float(think),
        total,
        d_max,
        slow,
        asymptotic is None,
        balanced,
        grid,
        sums[0],
        sums[1],
        upper,
        lower,
        code,
    )


# the populations at which the geometric bounds' queue sums are computed: every one up to GRID_EXACT,
# then one in each GRID_STEP (0.1%) of N, the same whichever populations are asked (two routes to a
# population's bounds, a sweep and --at, agree)
GRID_EXACT = 10_000
GRID_STEP = 1.001


def grid_population(index: ArrayLike) -> np.ndarray:
    """The grid's population number ``index`` (from 0): index + 1 up to GRID_EXACT, then
    ⌊GRID_EXACT · GRID_STEP^(index − GRID_EXACT + 1)⌋ (increasing: GRID_EXACT (GRID_STEP − 1) ≥ 1)."""
    index = np.asarray(index, float)
    past = np.maximum(index - GRID_EXACT + 1, 0.0)
    return np.where(index < GRID_EXACT, index + 1, np.floor(GRID_EXACT * GRID_STEP**past))


def grid_index(population: float) -> int:
    """The index of the grid's population at or below ``population`` (≥ 1)."""
    if population <= GRID_EXACT:
        return int(population) - 1
    index = GRID_EXACT - 1 + int(np.log(population / GRID_EXACT) / np.log(GRID_STEP))
    while grid_population(index) > population:
        index -= 1
    while grid_population(index + 1) <= population:
        index += 1
    return index


def _grid(populations: np.ndarray) -> np.ndarray:
    """The grid's populations from the one at or below the least of ``populations`` to the one at or
    above the largest: at most GRID_EXACT + log(N / GRID_EXACT) / log(GRID_STEP) of them."""
    first = grid_index(float(populations.min()))
    last = grid_index(float(populations.max()))
    last += int(grid_population(last) < populations.max())
    return grid_population(np.arange(first, last + 1))


def grid_size(population: float) -> int:
    """How many grid populations a request up to ``population`` computes the queue sums at, at most."""
    return grid_index(max(population, 1.0)) + 2


def geometric_seconds(stations: int, populations: int) -> float:
    """Estimated seconds of :func:`geometric_bounds` for this many queues and populations (1..N: the
    most the grid holds up to N): the sums at the grid's populations (GEOMETRIC_RATE), and the closed
    forms at each population (SECONDS_PER_BOUND)."""
    sums = stations * min(populations, grid_size(populations))
    return sums / GEOMETRIC_RATE + populations * SECONDS_PER_BOUND


def _geometric_kernel(loadings, think, populations, lower_sum, upper_sum):
    """The queue sums Σ_{L_i < L_max} (L_max − L_i) Q_i of b⁻ and b⁺ (module docstring) at each population
    (loadings largest first)."""
    total = loadings.sum()
    top = loadings[0]
    sigma = (loadings**2).sum() / total
    first = 0  # the queues below the largest
    while first < loadings.size and loadings[first] == top:
        first += 1
    for p in range(populations.size):
        n = populations[p]
        previous = n - 1.0  # Q bounds at N − 1
        scale = previous / (think + total + top * previous)
        aba = min(1.0 / top, (previous - 1.0) / (total + think)) if previous > 1.0 else 0.0
        denominator = think + total + sigma * (previous - 1.0 - think * aba)
        estimate = previous / denominator if previous > 0.0 else 0.0
        big = min(1.0 / top, estimate)
        negligible = np.exp(-40.0 / previous) if previous > 0.0 else 1.0  # y^n < e^−40 y: y − y^(n+1) = y
        lower_sum[p] = _queue_sum(loadings, first, scale, previous, negligible)
        upper_sum[p] = _queue_sum(loadings, first, big, previous, negligible)


def _bounds_kernel(
    populations,
    loadings,
    think,
    total,
    d_max,
    slow,
    geometric_only,
    balanced,
    grid,
    lower_sums,
    upper_sums,
    upper,
    lower,
    code,
):
    """Per population (module docstring): the asymptotic bounds (``total`` = D, ``d_max``, ``slow`` the
    demand at the slowest rates), and with ``balanced`` the balanced job and geometric bounds (the queue
    sums from ``grid``: the one at or below n for X⁻, at or above for X⁺); the tightest of each side and
    the code of the upper one (UPPER_BOUNDS). ``geometric_only``: the geometric bounds alone."""
    top = loadings[0] if loadings.size else 0.0
    queues = loadings.sum()
    mean = queues / loadings.size if loadings.size else 0.0
    for p in range(populations.size):
        n = populations[p]
        if geometric_only:
            best_upper, best_lower, best_code = np.inf, 0.0, 0
        else:
            light = n / (total + think)
            heavy = 1.0 / d_max
            best_upper, best_code = (heavy, 1) if heavy <= light else (light, 0)
            best_lower = n / (n * slow + think)
        if balanced:
            above = np.searchsorted(grid, n)  # the grid population at or above n
            below = above if grid[above] == n else above - 1
            base = think + queues + top * (n - 1.0)
            b_lower = base - lower_sums[below]
            b_upper = base - upper_sums[above]
            gb_lower = 2.0 * n / (b_lower + np.sqrt(max(b_lower**2 - 4.0 * think * top * (n - 1.0), 0.0)))
            gb_upper = 2.0 * n / (b_upper + np.sqrt(max(b_upper**2 - 4.0 * think * top * n, 0.0)))
            if geometric_only:
                best_upper, best_lower = gb_upper, gb_lower
            else:
                bjb_upper = n / (queues + think + (n - 1.0) * mean / (1.0 + think / queues))
                bjb_lower = n / (queues + think + (n - 1.0) * top / (1.0 + think / (n * queues)))
                if bjb_upper < best_upper:
                    best_upper, best_code = bjb_upper, 2
                if gb_upper < best_upper:  # past the knee the bottleneck governs
                    best_upper, best_code = gb_upper, 4 if n * top > queues + think else 3
                best_lower = max(best_lower, bjb_lower, gb_lower)
        upper[p], lower[p], code[p] = best_upper, best_lower, best_code


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

    throughput_upper: np.ndarray  # (C,)
    throughput_lower: np.ndarray  # (C,)
    response_lower: np.ndarray  # (C,)
    response_upper: np.ndarray  # (C,)


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
        upper = np.minimum(
            counts / (net.think_times + (demand * _fastest(net)).sum(axis=1)),
            np.where(busiest > 0, 1 / busiest, np.inf),
        )
    lower = counts / (
        net.think_times
        + demand[:, delay].sum(axis=1)
        + counts.sum() * (demand[:, ~delay] / slowest[~delay]).sum(axis=1)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        response_lower = np.where(counts > 0, counts / upper - net.think_times, 0.0)
        response_upper = np.where(counts > 0, counts / lower - net.think_times, 0.0)
    return ClassBounds(upper, lower, response_lower, response_upper)


def _fastest(net: Network) -> np.ndarray:
    """Per station, the least residence per unit of demand: min_j j/α(j) (1: delay, queue, c servers)."""
    return np.array(
        [1.0 if s.infinite else min(j / rate for j, rate in enumerate(s.rate_table, 1)) for s in net.stations]
    )


BOUNDS_KERNEL = Kernel(_bounds_kernel)
GEOMETRIC_KERNEL = Kernel(_geometric_kernel, Kernel(_queue_sum, Kernel(_light_queue_sum, fastmath=True)))
