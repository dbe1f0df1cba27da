"""Approximate MVA of closed networks with every station type: Bard–Schweitzer, Linearizer, Seidmann.

All replace the exact recursion's values at population N − e_c by estimates
from those at N, and solve the resulting fixed point:

    Q_k^j(N − e_c) ≈ (N − e_c)_j · (F_k^j(N) + Δ_k^{jc})          F_k^j = Q_k^j / N_j
    p_k(i | N − e_c) ≈ p_k(i | N) + Δp_k^c(i)                      load-dependent stations

Bard–Schweitzer (Schweitzer 1979; Lazowska et al., QSP §6.4.2) takes Δ = 0.
Linearizer (Chandy & Neuse 1982, Comm. ACM 25(2)) estimates Δ from the
solutions at N − e_c and iterates: three rounds, as in the original; here Δ
covers the marginal probabilities too. The residence time at a station with
rate table α(1..L) is exact MVA's (exact.py) with the estimates put in. The
marginals follow from the throughputs: the recursion
p(i) = Σ_c D_c X_c p(i − 1 | N − e_c) / α(i) makes p(1..L−1) linear in p(0),
and the balance Σ_i α(i) p(i) = ρ = Σ_c X_c D_c (served work = offered work)
fixes p(0); a station saturated in an iterate gets p(0) = 0. This is Bolch
et al.'s (2006, §8.2.4) multi-server recursion with Schweitzer's estimate.

Seidmann's decomposition (Seidmann, Schweitzer & Shalev-Oren 1987) replaces
c servers with demand D by one server with D / c and a delay of
D (c − 1) / c, then runs Bard–Schweitzer: cheaper, and exact neither at
light nor at heavy load (docs-networks.md has the errors measured).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from qmodel.errors import ConvergenceError
from qmodel.networks.exact import Tables, tables
from qmodel.networks.model import Network
from qmodel.networks.stations import Station

TOLERANCE = 1e-10
MAX_ITERATIONS = 100_000
LINEARIZER_ROUNDS = 3


@dataclass(frozen=True)
class Estimate:
    """An approximate solution at one population: X (C,), R (C, K), Q per class (C, K), p(0..L−1) flat."""

    throughput: np.ndarray
    residence_time: np.ndarray
    queue: np.ndarray
    marginals: np.ndarray        # flat over the load-dependent stations, p(0..L−1) each
    table: Tables

    @property
    def empty(self) -> np.ndarray:
        """(K,) p_k(0 | N) at the load-dependent stations, 0 elsewhere."""
        empty = np.zeros(self.residence_time.shape[1])
        empty[self.table.ld] = self.marginals[_starts(self.table)]
        return empty

    def marginals_of(self, station: int) -> np.ndarray:
        """p_k(0..L−2 | N) of one load-dependent station (the part exact MVA keeps too)."""
        m = int(np.flatnonzero(self.table.ld == station)[0])
        start = _starts(self.table)[m]
        return self.marginals[start:start + self.table.offsets[m + 1] - self.table.offsets[m]]


def schweitzer(net: Network, populations: np.ndarray) -> Estimate:
    """Bard–Schweitzer approximate MVA at ``populations`` (Δ = 0 above)."""
    return _core(net, populations.astype(float), *_no_delta(net))


def linearizer(net: Network, populations: np.ndarray) -> Estimate:
    """Linearizer approximate MVA (Chandy & Neuse 1982) at ``populations``, Δ over queues and marginals."""
    populations = populations.astype(float)
    delta, delta_p = _no_delta(net)
    for _ in range(LINEARIZER_ROUNDS):
        solution = _core(net, populations, delta, delta_p)
        fraction = _fraction(solution.queue, populations)
        updated, updated_p = np.zeros_like(delta), np.zeros_like(delta_p)
        for c in range(populations.size):
            if populations[c] == 0:
                continue
            reduced = populations.copy()
            reduced[c] -= 1
            smaller = _core(net, reduced, delta, delta_p)
            updated[:, :, c] = _fraction(smaller.queue, reduced) - fraction
            updated_p[c] = smaller.marginals - solution.marginals
        delta, delta_p = updated, updated_p
    return _core(net, populations, delta, delta_p)


def seidmann(net: Network, populations: np.ndarray) -> Estimate:
    """Bard–Schweitzer on Seidmann's decomposition: c servers → one server D/c plus a delay D(c − 1)/c."""
    capacities = np.array([1.0 if s.infinite else s.rate_table[-1] for s in net.stations])
    split = replace(net, stations=tuple(Station(s.name) if not s.infinite else s for s in net.stations)
                    + tuple(Station(f"{s.name} (delay part)", "delay") for s in net.stations),
                    demands=np.concatenate([net.demands / capacities, net.demands * (1 - 1 / capacities)],
                                           axis=1), visits=None)
    estimate = _core(split, populations.astype(float), *_no_delta(split))
    stations = len(net.stations)
    fold = lambda values: values[:, :stations] + values[:, stations:]  # noqa: E731
    return Estimate(estimate.throughput, fold(estimate.residence_time), fold(estimate.queue),
                    np.zeros(0), tables(replace(net, stations=tuple(Station(s.name) for s in net.stations))))


def _starts(table: Tables) -> np.ndarray:
    """Start of each load-dependent station's p(0..L−1) in the flat marginals (one more than exact's)."""
    sizes = np.diff(table.offsets) + 1
    return np.concatenate([[0], np.cumsum(sizes)])[:-1].astype(int)


def _no_delta(net: Network) -> tuple[np.ndarray, np.ndarray]:
    n_classes, stations = net.demands.shape
    table = tables(net)
    size = int((np.diff(table.offsets) + 1).sum())
    return np.zeros((n_classes, stations, n_classes)), np.zeros((n_classes, size))


def _fraction(queue: np.ndarray, populations: np.ndarray) -> np.ndarray:
    """F_k^j = Q_k^j / N_j (0 for an empty class), shape (classes, stations)."""
    return np.divide(queue, populations[:, None], out=np.zeros_like(queue), where=populations[:, None] > 0)


def _core(net: Network, populations: np.ndarray, delta: np.ndarray, delta_p: np.ndarray) -> Estimate:
    """Fixed point of the approximate recursion at ``populations`` with corrections Δ, Δp."""
    table = tables(net)
    demand = np.ascontiguousarray(net.demands, float)
    n_classes, n_stations = demand.shape
    starts = _starts(table)
    sizes = np.diff(table.offsets) + 1
    rates = np.concatenate([np.asarray(net.stations[k].rate_table, float) for k in table.ld]) \
        if table.ld.size else np.zeros(0)
    throughput, residence, queue = np.zeros(n_classes), np.zeros((n_classes, n_stations)), np.zeros(
        (n_classes, n_stations))
    marginals = np.zeros(delta_p.shape[1])
    iterations, change = _fixed_point(
        demand, np.asarray(net.think_times, float), populations, table.infinite, table.inverse_last, table.ld,
        starts.astype(np.int64), sizes.astype(np.int64), rates, table.coefficient, table.offsets,
        np.ascontiguousarray(delta), np.ascontiguousarray(delta_p), TOLERANCE, MAX_ITERATIONS,
        throughput, residence, queue, marginals)
    if iterations < 0:
        raise ConvergenceError(f"approximate MVA did not converge in {MAX_ITERATIONS} iterations (last "
                               f"change {change:.3g} jobs); use method exact for this network")
    return Estimate(throughput, residence, queue, marginals, table)


@njit(cache=True)
def _fixed_point(demand, think, populations, infinite, inverse_last, ld, starts, sizes, rates, coefficient,
                 offsets, delta, delta_p, tolerance, max_iterations, throughput, residence, queue,
                 marginals):  # pragma: no cover - compiled
    """Successive substitution of the approximate recursion (module docstring); returns (iterations, change).

    Marginals per load-dependent station: p(i) = a_i p(0) + b_i from the recursion, p(0) from the
    balance Σ α(i) p(i) = ρ, clipped to [0, 1] (a station saturated in an iterate).
    """
    n_classes, n_stations = demand.shape
    for c in range(n_classes):
        visited = 0
        for k in range(n_stations):
            if demand[c, k] > 0:
                visited += 1
        for k in range(n_stations):
            queue[c, k] = populations[c] / visited if demand[c, k] > 0 and visited > 0 else 0.0
    for m in range(ld.size):
        marginals[starts[m]] = 1.0
    limit = tolerance * max(populations.max(), 1.0)
    seen = np.zeros(n_stations)
    slope = np.zeros(sizes.max() if sizes.size else 1)
    offset = np.zeros_like(slope)
    change = np.inf
    for iteration in range(max_iterations):
        for c in range(n_classes):
            if populations[c] == 0:
                throughput[c] = 0.0
                for k in range(n_stations):
                    residence[c, k] = 0.0
                continue
            for k in range(n_stations):           # Σ_j (N − e_c)_j (F_k^j + Δ_k^{jc})
                total = 0.0
                for j in range(n_classes):
                    if populations[j] > 0:
                        reduced = populations[j] - (1.0 if j == c else 0.0)
                        total += reduced * (queue[j, k] / populations[j] + delta[j, k, c])
                seen[k] = max(total, 0.0)
            cycle = think[c]
            for k in range(n_stations):
                if infinite[k]:
                    residence[c, k] = demand[c, k]
                else:
                    residence[c, k] = demand[c, k] * inverse_last[k] * (1.0 + seen[k])
            for m in range(ld.size):
                k = ld[m]
                extra = 0.0
                for i in range(sizes[m] - 1):
                    estimate = marginals[starts[m] + i] + delta_p[c, starts[m] + i]
                    extra += coefficient[offsets[m] + i] * estimate
                residence[c, k] += demand[c, k] * extra
            for k in range(n_stations):
                cycle += residence[c, k]
            throughput[c] = populations[c] / cycle
        change = 0.0
        for c in range(n_classes):
            for k in range(n_stations):
                updated = throughput[c] * residence[c, k]
                change = max(change, abs(updated - queue[c, k]))
                queue[c, k] = updated
        base = 0
        for m in range(ld.size):
            k = ld[m]
            size = sizes[m]
            work = 0.0
            for c in range(n_classes):
                work += demand[c, k] * throughput[c]
            slope[0], offset[0] = 1.0, 0.0
            for i in range(1, size):
                correction = 0.0
                for c in range(n_classes):
                    correction += demand[c, k] * throughput[c] * delta_p[c, starts[m] + i - 1]
                slope[i] = work * slope[i - 1] / rates[base + i - 1]
                offset[i] = (work * offset[i - 1] + correction) / rates[base + i - 1]
            last = rates[base + size - 1]
            numerator, denominator = last - work, last
            for i in range(1, size):
                gap = last - rates[base + i - 1]
                numerator -= gap * offset[i]
                denominator += gap * slope[i]
            empty = min(max(numerator / denominator, 0.0), 1.0)
            for i in range(size):
                marginals[starts[m] + i] = max(slope[i] * empty + offset[i], 0.0)
            base += size
        if change <= limit:
            return iteration + 1, change
    return -1, change
