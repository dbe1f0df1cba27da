"""Approximate MVA of closed networks with every station type: Bard–Schweitzer, Linearizer, Seidmann.

All replace the exact recursion's values at population N − e_c by estimates
from those at N, and solve the resulting fixed point (successive
substitution; a qmodel.kernels loop, compiled past a size):

    Q_k^j(N − e_c) ≈ (N − e_c)_j · (F_k^j(N) + Δ_k^{jc})          F_k^j = Q_k^j / N_j

Bard–Schweitzer (Schweitzer 1979; Lazowska et al., QSP §6.4.2) takes Δ = 0.
Linearizer (Chandy & Neuse 1982, Comm. ACM 25(2)) estimates Δ from the
solutions at N − e_c and iterates: three rounds, as in the original.

A station with rate table α(1..L) (multi-server, ld) keeps exact MVA's
residence time (exact.py, the Reiser–Lavenberg form with the tail summed
through Q) with the estimated queue and an estimated arrival-instant
marginal: the birth–death distribution at the station's load
ρ_k = Σ_c X_c D_ck, p(j) ∝ ρ^j / Π_{i≤j} α(i), truncated at |N| − 1 jobs and
normalised by summation (positive terms: no 1 − Σ, valid past saturation;
exact at |N| = 1). It was chosen over the M/M/c-shaped marginals of Akyildiz–Bolch/LINE (+10% on X at light
load there, 1.5% here); a Linearizer correction of the marginals themselves
(Krzesinski & Greyling 1984) was tried and made light-load errors worse, so
Linearizer corrects the queue lengths only.

Seidmann's decomposition (Seidmann, Schweitzer & Shalev-Oren 1987) replaces
c servers with demand D by one server with D / c and a delay of
D (c − 1) / c, then runs Bard–Schweitzer on the network so transformed.
Errors measured on generated networks: docs/background/accuracy.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from qmodel.errors import ConvergenceError
from qmodel.kernels import Kernel
from qmodel.networks.exact import Tables, tables
from qmodel.networks.model import Network
from qmodel.networks.stations import Station

TOLERANCE = 1e-10
MAX_ITERATIONS = 100_000
LINEARIZER_ROUNDS = 3
DAMP_AFTER = 500  # iterations without convergence before the update is damped (halved) ...
MIN_WEIGHT = 1 / 64  # ... down to this weight: a thrashing (falling) rate table can oscillate


@dataclass(frozen=True)
class Estimate:
    """An approximate solution at one population: X (C,), R (C, K), Q per class (C, K), p(0..L−1) flat."""

    throughput: np.ndarray
    residence_time: np.ndarray
    queue: np.ndarray
    marginals: np.ndarray  # flat over the load-dependent stations, arrival-instant p(0..L−1) each
    table: Tables
    network: Network
    populations: np.ndarray

    @property
    def empty(self) -> np.ndarray:
        """(K,) p_k(0 | N) at the load-dependent stations, 0 elsewhere."""
        empty = np.zeros(self.residence_time.shape[1])
        for k in self.table.ld:
            empty[k] = self.marginals_of(int(k))[0]
        return empty

    def marginals_of(self, station: int) -> np.ndarray:
        """p_k(0..L−2 | N), the birth-death estimate at the solution's load with |N| jobs."""
        rates = np.asarray(self.network.stations[station].rate_table, float)
        load = float(self.network.demands[:, station] @ self.throughput)
        out = np.zeros(rates.size)
        birth_death(load, float(self.populations.sum()), rates, out)
        return out[:-1]


def schweitzer(net: Network, populations: np.ndarray) -> Estimate:
    """Bard–Schweitzer approximate MVA at ``populations`` (Δ = 0 above)."""
    return _core(net, populations.astype(float), _no_delta(net))


def linearizer(net: Network, populations: np.ndarray) -> Estimate:
    """Linearizer approximate MVA (Chandy & Neuse 1982) at ``populations``: Δ on the queue lengths."""
    populations = populations.astype(float)
    delta = _no_delta(net)
    for _ in range(LINEARIZER_ROUNDS):
        solution = _core(net, populations, delta)
        fraction = _fraction(solution.queue, populations)
        updated = np.zeros_like(delta)
        for c in range(populations.size):
            if populations[c] == 0:
                continue
            reduced = populations.copy()
            reduced[c] -= 1
            updated[:, :, c] = _fraction(_core(net, reduced, delta).queue, reduced) - fraction
        delta = updated
    return _core(net, populations, delta)


def seidmann(net: Network, populations: np.ndarray) -> Estimate:
    """Bard–Schweitzer on Seidmann's decomposition: c servers → one server D/c plus a delay D(c − 1)/c."""
    capacities = np.array([1.0 if s.infinite else s.rate_table[-1] for s in net.stations])
    split = replace(
        net,
        stations=tuple(Station(s.name) if not s.infinite else s for s in net.stations)
        + tuple(Station(f"{s.name} (delay part)", "delay") for s in net.stations),
        demands=np.concatenate([net.demands / capacities, net.demands * (1 - 1 / capacities)], axis=1),
        visits=None,
    )
    estimate = _core(split, populations.astype(float), _no_delta(split))
    stations = len(net.stations)
    fold = lambda values: values[:, :stations] + values[:, stations:]  # noqa: E731
    plain = replace(net, stations=tuple(Station(s.name) for s in net.stations))
    return Estimate(
        estimate.throughput,
        fold(estimate.residence_time),
        fold(estimate.queue),
        np.zeros(0),
        tables(plain),
        plain,
        populations,
    )


def _starts(table: Tables) -> np.ndarray:
    """Start of each load-dependent station's p(0..L−1) in the flat marginals (one more than exact's)."""
    sizes = np.diff(table.offsets) + 1
    return np.concatenate([[0], np.cumsum(sizes)])[:-1].astype(int)


def _no_delta(net: Network) -> np.ndarray:
    n_classes, stations = net.demands.shape
    return np.zeros((n_classes, stations, n_classes))


def _fraction(queue: np.ndarray, populations: np.ndarray) -> np.ndarray:
    """F_k^j = Q_k^j / N_j (0 for an empty class), shape (classes, stations)."""
    return np.divide(queue, populations[:, None], out=np.zeros_like(queue), where=populations[:, None] > 0)


def _core(net: Network, populations: np.ndarray, delta: np.ndarray) -> Estimate:
    """Fixed point of the approximate recursion at ``populations`` with corrections Δ."""
    table = tables(net)
    demand = np.ascontiguousarray(net.demands, float)
    n_classes, n_stations = demand.shape
    starts = _starts(table)
    sizes = np.diff(table.offsets) + 1
    rates = (
        np.concatenate([np.asarray(net.stations[k].rate_table, float) for k in table.ld])
        if table.ld.size
        else np.zeros(0)
    )
    throughput, residence, queue = (
        np.zeros(n_classes),
        np.zeros((n_classes, n_stations)),
        np.zeros((n_classes, n_stations)),
    )
    marginals = np.zeros(int(sizes.sum()))
    arguments = (
        demand,
        np.asarray(net.think_times, float),
        populations,
        table.infinite,
        table.inverse_last,
        table.ld,
        starts.astype(np.int64),
        sizes.astype(np.int64),
        rates,
        table.coefficient,
        table.offsets,
        np.array([min(j / r for j, r in enumerate(net.stations[k].rate_table, 1)) for k in table.ld], float),
        np.ascontiguousarray(delta),
        TOLERANCE,
    )
    outputs = (throughput, residence, queue, marginals)
    # interpreted for as many iterations as take less than compiling would; compiled if it needs more
    step = n_classes * n_stations * (n_classes + 2) + int(sizes.sum()) * (n_classes + 4)
    budget = min(MAX_ITERATIONS, FIXED_POINT.interpreted_steps(step))
    iterations, change = _fixed_point(*arguments, budget, *outputs) if budget else (-1, np.inf)
    if iterations < 0:
        iterations, change = FIXED_POINT.compiled(*arguments, MAX_ITERATIONS, *outputs)
    if iterations < 0:
        raise ConvergenceError(
            f"approximate MVA did not converge in {MAX_ITERATIONS} iterations (last "
            f"change {change:.3g} jobs); use method exact for this network"
        )
    return Estimate(throughput, residence, queue, marginals, table, net, populations)


def _fixed_point(
    demand,
    think,
    populations,
    infinite,
    inverse_last,
    ld,
    starts,
    sizes,
    rates,
    coefficient,
    offsets,
    least,
    delta,
    tolerance,
    max_iterations,
    throughput,
    residence,
    queue,
    marginals,
):
    """Successive substitution of the approximate recursion (module docstring); returns (iterations, change).

    Every DAMP_AFTER iterations without convergence the update's weight halves (to MIN_WEIGHT):
    a falling rate table (thrashing) can make the plain iteration oscillate.

    ``marginals`` holds each load-dependent station's arrival-instant estimate p(0..L−1 | N − e_c),
    the birth-death distribution at load ρ truncated at |N| − 1 jobs (birth_death).
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
    jobs = populations.sum()
    weight = 1.0
    change = np.inf
    for iteration in range(max_iterations):
        for c in range(n_classes):
            if populations[c] == 0:
                throughput[c] = 0.0
                for k in range(n_stations):
                    residence[c, k] = 0.0
                continue
            for k in range(n_stations):  # Σ_j (N − e_c)_j (F_k^j + Δ_k^{jc})
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
                    extra += coefficient[offsets[m] + i] * marginals[starts[m] + i]
                # never below the least residence D min_j j/α(j): estimates of Q and p that do not
                # match (a falling rate table) could otherwise make it negative
                residence[c, k] = max(residence[c, k] + demand[c, k] * extra, demand[c, k] * least[m])
            for k in range(n_stations):
                cycle += residence[c, k]
            throughput[c] = populations[c] / cycle
        if iteration > 0 and iteration % DAMP_AFTER == 0:
            weight = max(weight / 2, MIN_WEIGHT)  # still moving: damp (the fixed point is the same)
        change = 0.0
        for c in range(n_classes):
            for k in range(n_stations):
                updated = throughput[c] * residence[c, k]
                change = max(change, abs(updated - queue[c, k]))
                queue[c, k] += weight * (updated - queue[c, k])
        base = 0
        for m in range(ld.size):
            k = ld[m]
            work = 0.0
            for c in range(n_classes):
                work += demand[c, k] * throughput[c]
            segment = marginals[starts[m] : starts[m] + sizes[m]]
            birth_death(work, jobs - 1.0, rates[base : base + sizes[m]], segment)
            base += sizes[m]
        if change <= limit:
            return iteration + 1, change
    return -1, change


def birth_death(load, jobs, rates, out):
    """p(0..L−1) of j = 0..jobs jobs with weights ρ^j / Π_{i≤j} α(i), α(L) holding past the table.

    Summed in logarithms, the tail past L as a geometric series in r = ρ / α(L) (any r: the
    distribution is truncated at ``jobs``), so nothing overflows and nothing cancels.
    """
    size = rates.size
    if load <= 0.0 or jobs < 1.0:
        out[:] = 0.0
        out[0] = 1.0
        return
    logs = np.full(size + 1, -np.inf)
    log_load = np.log(load)
    log_product = 0.0
    head = int(min(jobs, size - 1))
    for j in range(head + 1):
        if j > 0:
            log_product += np.log(rates[j - 1])
        logs[j] = j * log_load - log_product
    if jobs >= size:
        log_product_l = log_product
        for j in range(head + 1, size + 1):
            log_product_l += np.log(rates[j - 1])
        ratio = load / rates[size - 1]
        terms = jobs - size + 1.0  # j = L..jobs
        if ratio == 1.0:
            geometric = np.log(terms)
        elif ratio < 1.0:
            geometric = np.log1p(-(ratio**terms)) - np.log1p(-ratio)
        else:
            geometric = (
                (terms - 1.0) * np.log(ratio) + np.log1p(-(ratio ** (-terms))) - np.log1p(-1.0 / ratio)
            )
        logs[size] = size * log_load - log_product_l + geometric
    top = logs.max()
    total = 0.0
    for j in range(size + 1):
        total += np.exp(logs[j] - top)
    for j in range(size):
        out[j] = np.exp(logs[j] - top) / total


FIXED_POINT = Kernel(_fixed_point, Kernel(birth_death))
