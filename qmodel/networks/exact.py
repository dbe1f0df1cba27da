"""Exact Mean Value Analysis of closed product-form networks, any number of classes, every station type.

Each finite station k has a rate table α_k(1..L_k) whose last entry holds
for more jobs (qmodel.networks.stations; L = 1 for a queue, c for c servers).
With n the population vector, e_c one job of class c, and p_k(j | n) the
marginal probability of j jobs at station k (Reiser & Lavenberg 1980;
Bolch et al. 2006, §8.2.4 for the multi-server form):

    R_ck(n) = D_ck Σ_{j≥1} j / α_k(j) · p_k(j − 1 | n − e_c)
            = D_ck [ (1 + Q_k(n − e_c)) / α_k(L)
                     + Σ_{j=1..L−1} j (1/α_k(j) − 1/α_k(L)) p_k(j − 1 | n − e_c) ]
    R_ck(n) = D_ck                                        delay station
    X_c(n)  = n_c / (Z_c + Σ_k R_ck(n)),   Q_k(n) = Σ_c X_c(n) R_ck(n)
    p_k(j | n) = Σ_c D_ck X_c(n) p_k(j − 1 | n − e_c) / α_k(j)       1 ≤ j ≤ L − 2

The second form of R (the tail where α is constant summed through Q) needs
p_k(0..L−2) only: O(L) work per station and population, not O(N).

The usual p_k(0 | n) = 1 − Σ_{j≥1} p_k(j | n) cancels catastrophically once
the station saturates (Octave's qncsmva gives negative throughput at N = 80
on an 8-server station). Here it comes from the complementary network
(station k removed), a product of positive ratios with no subtraction:

    p_k(0 | n) = G^{−k}(n) / G(n) = p_k(0 | n − e_c) · X_c(n) / X_c^{−k}(n)     any c with n_c > 0

X^{−k} is the same recursion on the network without k, which needs its own
complements: the 2^M subnetworks (M load-dependent stations) are solved in
lockstep, one population level at a time, supersets first, so memory is
bounded by one level of the lattice (one population for a single class).
Cost: 2^M · Π_c (N_c + 1) · C · (K + Σ L_k) operations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from qmodel.limits import refuse_too_large
from qmodel.networks.model import Network

Progress = Callable[[int, int], None]

# operations per second (CPU, this machine; bench/limits_calibration.py measures them near the limit)
LATTICE_RATE = 6.2e7        # the vectorised lattice with load-dependent stations: 5.8e7 to 6.6e7 measured
COMPILED_LATTICE_RATE = 1.2e8   # the compiled lattice of queues and delays (Q at every point): 1.2e8 to 3e8
SWEEP_RATE = 6.5e8          # the compiled single-class recursion: 5.7e8 (64 subnetworks) to 8.4e8 (queues)
CHUNK = 4096                # populations per compiled call between progress reports


@dataclass(frozen=True)
class Tables:
    """The stations as the recursion sees them: rate tables flattened, one column per p_k(j) kept."""

    infinite: np.ndarray     # (K,) bool
    inverse_last: np.ndarray  # (K,) 1/α_k(L) (0 at a delay station)
    ld: np.ndarray           # (M,) indices of the stations with L ≥ 2
    offsets: np.ndarray      # (M + 1,) where each one's p_k(0..L−2) start in the flat state
    coefficient: np.ndarray  # (T,) j (1/α(j) − 1/α(L)) for j = 1..L−1, multiplying p(j − 1)
    inverse_rate: np.ndarray  # (T,) 1/α(j) for j = 1..L−1

    @property
    def subsets(self) -> int:
        return 1 << self.ld.size


def tables(net: Network) -> Tables:
    """The recursion's view of the network's stations (see the module docstring)."""
    infinite = net.infinite
    inverse_last = np.array([0.0 if s.infinite else 1.0 / s.rate_table[-1] for s in net.stations])
    ld = [k for k, s in enumerate(net.stations) if not s.infinite and len(s.rate_table) >= 2]
    coefficient, inverse_rate, offsets = [np.zeros(0)], [np.zeros(0)], [0]
    for k in ld:
        rates = np.asarray(net.stations[k].rate_table, float)
        j = np.arange(1, rates.size)
        coefficient.append(j * (1 / rates[:-1] - 1 / rates[-1]))
        inverse_rate.append(1 / rates[:-1])
        offsets.append(offsets[-1] + rates.size - 1)
    return Tables(infinite, inverse_last, np.array(ld, dtype=np.int64), np.array(offsets, dtype=np.int64),
                  np.concatenate(coefficient), np.concatenate(inverse_rate))


def subset_order(subsets: int) -> np.ndarray:
    """Subnetworks (bit m set: load-dependent station m removed), those with more removed first."""
    return np.array(sorted(range(subsets), key=lambda s: (-bin(s).count("1"), s)), dtype=np.int64)


@dataclass(frozen=True)
class Sweep:
    """Single-class exact MVA for n = 1..N: X and R for every n, the stations' figures at ``at``."""

    throughput: np.ndarray       # (N,) jobs per second
    response_time: np.ndarray    # (N,) seconds, think time excluded
    at: np.ndarray               # (A,) populations with station figures
    queue_length: np.ndarray     # (A, K)
    residence_time: np.ndarray   # (A, K)
    empty: np.ndarray            # (A, K) p_k(0 | n): 1 − busy (0 at delay and constant-rate stations)


# Per population of a sweep, whatever the network: its arrays and the pages they touch (a planner's trial,
# 3 stations to N = 120,000,000: 2.98 GB at its peak, about 25 bytes a population, and 8.8 s of CPU, 5.7 s
# of it the system's page faults, about 70 ns a population, where the recursion alone was estimated 1 s)
BYTES_PER_POPULATION = 32.0
SECONDS_PER_POPULATION = 7e-8


def estimate_sweep(net: Network, population: int) -> tuple[float, float]:
    """(bytes, seconds) a single-class sweep to ``population`` would take: the recursion's state per
    population (SWEEP_RATE), and the arrays of every population (BYTES_PER_POPULATION,
    SECONDS_PER_POPULATION)."""
    table = tables(net)
    state = table.subsets * (len(net.stations) + table.coefficient.size + 2)
    return (BYTES_PER_POPULATION * population + 8.0 * state,
            population * (state / SWEEP_RATE + SECONDS_PER_POPULATION))


def sweep(net: Network, population: int, at: Sequence[int] = (), progress: Progress | None = None) -> Sweep:
    """Exact single-class MVA for every population 1..N, per-station figures at ``at`` only.

    Memory: two arrays of N, plus the stations at the populations asked for.
    Units: seconds and jobs per second. Source: module docstring.
    """
    refuse_too_large(*estimate_sweep(net, population), f"a sweep to N = {population:,}",
                     "a smaller N (--at does not shorten the sweep itself)")
    table = tables(net)
    at_array = np.unique(np.asarray(at, dtype=np.int64))
    order = subset_order(table.subsets)
    stations = len(net.stations)
    queue = np.zeros((table.subsets, stations))
    state = np.zeros((table.subsets, table.coefficient.size))
    state[:, table.offsets[:-1]] = 1.0                         # p(0 | 0) = 1
    removed = np.array([[bool(s >> m & 1) for m in range(table.ld.size)] for s in range(table.subsets)]
                       ).reshape(table.subsets, table.ld.size)
    throughput = np.zeros(population + 1)
    response = np.zeros(population + 1)
    queue_at = np.zeros((at_array.size, stations))
    residence_at = np.zeros((at_array.size, stations))
    empty_at = np.zeros((at_array.size, stations))
    for start in range(1, population + 1, CHUNK):
        stop = min(start + CHUNK, population + 1)
        _sweep_kernel(np.ascontiguousarray(net.demands[0], float), table.infinite, table.inverse_last,
                      table.ld, table.offsets, table.coefficient, table.inverse_rate, removed, order,
                      float(net.think_times[0]), start, stop, queue, state, throughput, response, at_array,
                      int(np.searchsorted(at_array, start)), queue_at, residence_at, empty_at)
        if progress is not None:
            progress(stop - 1, population)
    return Sweep(throughput[1:], response[1:], at_array, queue_at, residence_at, empty_at)


@njit(cache=True)
def _sweep_kernel(demand, infinite, inverse_last, ld, offsets, coefficient, inverse_rate, removed, order,
                  think, start, stop, queue, state, throughput, response, at, next_at, queue_at, residence_at,
                  empty_at):  # pragma: no cover - compiled
    """Populations start..stop−1 of the recursion in the module docstring, every subnetwork in lockstep.

    ``at`` is sorted and unique; ``next_at`` is the first of them ≥ start (one comparison per n).
    """
    stations = demand.size
    subsets = order.size
    x_now = np.zeros(subsets)
    residence = np.zeros(stations)
    gone = np.zeros(stations, dtype=np.bool_)
    for n in range(start, stop):
        for s in order:
            gone[:] = False
            for m in range(ld.size):
                if removed[s, m]:
                    gone[ld[m]] = True
            total = think
            for k in range(stations):
                if gone[k] or demand[k] == 0.0:
                    residence[k] = 0.0
                elif infinite[k]:
                    residence[k] = demand[k]
                else:
                    residence[k] = demand[k] * inverse_last[k] * (1.0 + queue[s, k])
                total += residence[k]
            for m in range(ld.size):
                k = ld[m]
                if gone[k] or demand[k] == 0.0:
                    continue
                extra = 0.0
                for i in range(offsets[m], offsets[m + 1]):
                    extra += coefficient[i] * state[s, i]
                residence[k] += demand[k] * extra
                total += demand[k] * extra
            if total <= 0.0:                    # no station and no think time left: G(n) = 0
                x_now[s] = np.inf
                queue[s, :] = 0.0
                state[s, :] = 0.0
                continue
            x = n / total
            x_now[s] = x
            for k in range(stations):
                queue[s, k] = x * residence[k]
            for m in range(ld.size):
                k = ld[m]
                if gone[k]:
                    continue
                base = offsets[m]
                for i in range(offsets[m + 1] - 1, base, -1):      # p(j | n) from p(j − 1 | n − 1)
                    state[s, i] = demand[k] * x * inverse_rate[i - 1] * state[s, i - 1]
                other = x_now[s | (1 << m)]
                state[s, base] = 0.0 if other == np.inf else state[s, base] * x / other
        throughput[n] = x_now[0]
        response[n] = n / x_now[0] - think
        if next_at < at.size and at[next_at] == n:
            for k in range(stations):
                queue_at[next_at, k] = queue[0, k]
                residence_at[next_at, k] = residence[k]
            for m in range(ld.size):
                empty_at[next_at, ld[m]] = state[0, offsets[m]]
            next_at += 1


@dataclass(frozen=True)
class Point:
    """Exact MVA at one population vector: per class X (C,), per class and station R (C, K), p_k(0)."""

    throughput: np.ndarray
    residence_time: np.ndarray
    empty: np.ndarray            # (K,) p_k(0 | N) at the load-dependent stations, 0 elsewhere
    marginals: dict[int, np.ndarray]  # station → p_k(0..L−2 | N) at the load-dependent stations


def level_sizes(populations: np.ndarray) -> np.ndarray:
    """Number of lattice points at each level 0..ΣN (the product of (1 + z + ... + z^N_c))."""
    sizes = np.ones(1)
    for count in populations.astype(int):
        sizes = np.convolve(sizes, np.ones(count + 1))
    return sizes


def estimate_lattice(net: Network, populations: np.ndarray) -> tuple[float, float]:
    """(bytes, seconds) exact multi-class MVA over the population lattice would take."""
    table = tables(net)
    n_classes, stations = len(populations), len(net.stations)
    points = float(np.prod(populations.astype(float) + 1))
    if points > 1e9:
        return points * 8 * (n_classes + 1), points * n_classes * stations / LATTICE_RATE
    if table.ld.size == 0:                           # compiled, Q kept at every point
        return points * 8 * stations, points * n_classes * stations / COMPILED_LATTICE_RATE
    width = float(level_sizes(populations).max())
    state = stations + table.coefficient.size + n_classes
    memory = (points * 8 * (n_classes + 1) + 16 * table.subsets * width * state
              + 24 * width * n_classes * stations)
    work = table.subsets * points * n_classes * (stations + table.coefficient.size)
    return memory, work / LATTICE_RATE


def lattice(net: Network, populations: np.ndarray, progress: Progress | None = None) -> Point:
    """Exact multi-class MVA at ``populations`` (C,), one population level at a time (module docstring)."""
    refuse_too_large(*estimate_lattice(net, populations),
                     f"exact MVA at populations {populations.astype(int)}",
                     "--method linearizer or schweitzer (approximate), or smaller populations")
    table = tables(net)
    counts = populations.astype(np.int64)
    n_classes = counts.size
    demand = net.demands
    shape = counts + 1
    strides = np.array([int(np.prod(shape[c + 1:])) for c in range(n_classes)], dtype=np.int64)
    if table.ld.size == 0:
        return _load_independent_lattice(net, table, counts, strides, progress)
    points = np.indices(shape).reshape(n_classes, -1).T
    level = points.sum(axis=1)
    order = np.argsort(level, kind="stable")
    bounds = np.searchsorted(level[order], np.arange(level.max() + 2))
    position = np.empty(level.size, dtype=np.int64)
    for m in range(level.max() + 1):
        position[order[bounds[m]:bounds[m + 1]]] = np.arange(bounds[m + 1] - bounds[m])
    subsets = subset_order(table.subsets)
    views = [_Subnetwork(net, table, s) for s in range(table.subsets)]
    for view in views:
        view.start()
    last = int(level.max())
    for m in range(1, last + 1):
        flat = order[bounds[m]:bounds[m + 1]]
        jobs = points[flat]
        before = [np.where(jobs[:, c] > 0, position[np.maximum(flat - strides[c], 0)], 0)
                  for c in range(n_classes)]
        chosen = np.argmax(jobs > 0, axis=1)
        for s in subsets:
            views[s].step(jobs, before, chosen, views)
        for view in views:
            view.advance()
        if progress is not None:
            progress(m, last)
    top = views[0]
    if last == 0:
        return Point(np.zeros(n_classes), np.zeros(demand.shape), np.ones(len(net.stations)), {})
    empty = np.zeros(len(net.stations))
    empty[table.ld] = top.state[0, table.offsets[:-1]]
    marginals = {int(k): top.state[0, table.offsets[m]:table.offsets[m + 1]] for m, k in enumerate(table.ld)}
    return Point(top.throughput[0], top.residence[0], empty, marginals)


def _load_independent_lattice(net: Network, table: Tables, counts: np.ndarray, strides: np.ndarray,
                              progress: Progress | None) -> Point:
    """Queues and delays only: the recursion over the lattice in index order, compiled, Q kept per point."""
    scaled = np.ascontiguousarray(net.demands * table.inverse_last)
    base = np.ascontiguousarray(scaled + net.demands * net.infinite)
    throughput = np.zeros(counts.size)
    residence = np.zeros(net.demands.shape)
    _load_independent_kernel(scaled, base, np.asarray(net.think_times, float), counts, strides,
                             throughput, residence)
    if progress is not None:
        progress(1, 1)
    return Point(throughput, residence, np.zeros(len(net.stations)), {})


@njit(cache=True)
def _load_independent_kernel(scaled, base, think, counts, strides, throughput,
                             residence):  # pragma: no cover - compiled
    """R_ck(n) = D_ck (1 + Q_k(n − e_c)) (D_ck at a delay), X_c = n_c / (Z_c + Σ_k R_ck), Q = Σ_c X_c R_c.

    Points in index order (n − e_c has the smaller index); the last point's X and R are returned.
    """
    n_classes, stations = scaled.shape
    points = 1
    for c in range(n_classes):
        points *= counts[c] + 1
    queue = np.zeros((points, stations))
    jobs = np.zeros(n_classes, dtype=np.int64)
    for flat in range(1, points):
        rest = flat
        for c in range(n_classes):
            jobs[c] = rest // strides[c]
            rest -= jobs[c] * strides[c]
        for k in range(stations):
            queue[flat, k] = 0.0
        for c in range(n_classes):
            if jobs[c] == 0:
                throughput[c] = 0.0
                continue
            before = flat - strides[c]
            cycle = think[c]
            for k in range(stations):
                residence[c, k] = scaled[c, k] * queue[before, k] + base[c, k]
                cycle += residence[c, k]
            throughput[c] = jobs[c] / cycle
            for k in range(stations):
                queue[flat, k] += throughput[c] * residence[c, k]


class _Subnetwork:
    """One subnetwork's state at the previous and current level of the lattice."""

    def __init__(self, net: Network, table: Tables, subset: int) -> None:
        self.subset = subset
        self.table = table
        gone = np.zeros(len(net.stations), dtype=bool)
        for m in range(table.ld.size):
            gone[table.ld[m]] = bool(subset >> m & 1)
        self.gone = gone
        self.demand = np.where(gone, 0.0, net.demands)
        self.think = net.think_times
        # a class with no station and no think time left: G(n) = 0 wherever it has a job
        self.homeless = (self.demand.sum(axis=1) == 0) & (self.think == 0)
        self.kept = [m for m in range(table.ld.size) if not gone[table.ld[m]]]
        # p(j − 1) → R coefficient matrix (T, K), and shift (source, target) pairs for p(j) from p(j − 1)
        coefficient = np.zeros((table.coefficient.size, len(net.stations)))
        for m, k in enumerate(table.ld):
            coefficient[table.offsets[m]:table.offsets[m + 1], k] = table.coefficient[
                table.offsets[m]:table.offsets[m + 1]]
        self.coefficient = coefficient
        self.scaled = self.demand * table.inverse_last                   # D/α(L): 0 at a delay station
        self.base = self.scaled + self.demand * net.infinite            # R with an empty queue
        self.homeless_any = bool(self.homeless.any())

    def start(self) -> None:
        stations = self.demand.shape[1]
        self.queue = np.zeros((1, stations))
        self.state = np.zeros((1, self.table.coefficient.size))
        self.state[0, self.table.offsets[:-1]] = 1.0
        self.void = np.zeros(1, dtype=bool)

    def step(self, jobs: np.ndarray, before: list[np.ndarray], chosen: np.ndarray,
             views: list[_Subnetwork]) -> None:
        table = self.table
        n_points, n_classes = jobs.shape
        stations = self.demand.shape[1]
        residence = np.empty((n_points, n_classes, stations))
        for c in range(n_classes):            # (points where class c has no job: unused, X_c = 0 there)
            rows = before[c]
            np.multiply(self.queue[rows], self.scaled[c], out=residence[:, c, :])
            residence[:, c, :] += self.base[c]
            if self.kept:
                residence[:, c, :] += (self.state[rows] @ self.coefficient) * self.demand[c]
        void = (jobs[:, self.homeless] > 0).any(axis=1) if self.homeless_any else np.zeros(n_points, bool)
        cycle = self.think + residence.sum(axis=2)
        live = jobs > 0
        if self.homeless_any:
            live &= ~void[:, None]
        throughput = np.divide(jobs, cycle, out=np.zeros(cycle.shape), where=live)
        self.next_queue = np.matmul(throughput[:, None, :], residence)[:, 0, :]
        state = np.zeros((n_points, table.coefficient.size))
        for m in self.kept:
            k = table.ld[m]
            base, end = table.offsets[m], table.offsets[m + 1]
            for c in range(n_classes):
                previous = self.state[before[c]]
                weight = (self.demand[c, k] * throughput[:, c])[:, None]
                shifted = previous[:, base:end - 1] * table.inverse_rate[base:end - 1]
                state[:, base + 1:end] += weight * shifted
            other = views[self.subset | (1 << m)]
            rows = np.arange(n_points)
            ratio = np.divide(throughput[rows, chosen], other.next_throughput[rows, chosen],
                              out=np.zeros(n_points), where=~other.next_void)
            state[:, base] = _chosen_previous(self.state[:, base], before, chosen) * ratio
        state[void] = 0.0
        self.next_state = state
        self.next_throughput = throughput
        self.next_residence = residence if n_points == 1 else None
        self.next_void = void

    def advance(self) -> None:
        self.queue, self.state, self.void = self.next_queue, self.next_state, self.next_void
        self.throughput, self.residence = self.next_throughput, self.next_residence


def _chosen_previous(column: np.ndarray, before: list[np.ndarray], chosen: np.ndarray) -> np.ndarray:
    """p_k(0 | n − e_c) for each point's chosen class c."""
    stacked = np.stack([column[b] for b in before], axis=1)
    return stacked[np.arange(chosen.size), chosen]
