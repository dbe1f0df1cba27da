"""Exact Mean Value Analysis of closed product-form networks.

Single class (Reiser & Lavenberg 1980; Lazowska et al., QSP ch. 6 and 8.4):
for n = 1..N, with Q_k(0) = 0,

    R_k(n) = D_k (1 + Q_k(n − 1))                         queueing station
    R_k(n) = D_k                                           delay station
    R_k(n) = D_k Σ_{j=1..n} j / α_k(j) · p_k(j − 1 | n − 1)  load-dependent station
    X(n)   = n / (Z + Σ_k R_k(n)),    Q_k(n) = X(n) R_k(n)

where α_k(j) is the service-rate multiplier with j jobs present (min(j, c)
for c servers) and p_k(j | n) the marginal queue-length distribution:

    p_k(j | n) = D_k X(n) / α_k(j) · p_k(j − 1 | n − 1)     j ≥ 1

The usual p_k(0 | n) = 1 − Σ_{j≥1} p_k(j | n) cancels catastrophically once
the station saturates (it goes negative: Octave's qncsmva does at N = 80 on
an 8-server station). Here it comes from the complementary network (station
k removed), a product of positive ratios with no subtraction:

    p_k(0 | n) = G^{−k}(n) / G(n) = p_k(0 | n − 1) · X(n) / X^{−k}(n)

(X(n) = G(n − 1)/G(n)). X^{−k} is the same algorithm on the smaller network,
so a model with L load-dependent stations solves 2^L small networks; each
costs O(K·N + L·N²).

Several classes (exact MVA over the population lattice, Reiser & Lavenberg):

    R_ck(n) = D_ck (1 + Q_k(n − e_c)),   X_c(n) = n_c / (Z_c + Σ_k R_ck(n)),
    Q_k(n)  = Σ_c X_c(n) R_ck(n)

computed one population level at a time, vectorised over the level's points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from qmodel.errors import InputError
from qmodel.networks.model import Network, capacities, delay_stations, refuse_load_dependent

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ClosedResult:
    """Closed-network results at one or more population vectors.

    Arrays have a leading axis over ``populations`` (P points), then classes
    (C), then stations (K). Times are in the model's time unit.
    """

    stations: tuple[str, ...]
    classes: tuple[str, ...]
    populations: np.ndarray      # (P, C) jobs of each class
    throughput: np.ndarray       # (P, C) jobs per time unit
    response_time: np.ndarray    # (P, C) time in the stations, think time excluded
    queue_length: np.ndarray     # (P, C, K) mean jobs at each station
    residence_time: np.ndarray   # (P, C, K) time per job at each station, all visits
    utilization: np.ndarray      # (P, C, K) busy fraction of each server (delay: jobs in service)
    method: str = "exact"
    time_unit: str = "s"

    def at(self, index: int = -1) -> ClosedResult:
        """The results at one population point (default: the last)."""
        pick = [index]
        return ClosedResult(self.stations, self.classes, self.populations[pick], self.throughput[pick],
                            self.response_time[pick], self.queue_length[pick], self.residence_time[pick],
                            self.utilization[pick], self.method, self.time_unit)


def solve_closed(model: Network, population: int | None = None,
                 progress: Progress | None = None) -> ClosedResult:
    """Exact MVA of a closed network: every population 1..N (one class) or the model's vector.

    ``population`` overrides a single-class model's population for a sweep
    1..N. Units: demands and think times in the model's time unit; X in jobs
    per time unit. Source: Reiser & Lavenberg (1980); load-dependent stations
    with the complementary-network marginals described in the module docstring.
    """
    _refuse_open(model)
    if model.demands.shape[0] == 1:
        n = int(model.populations[0] if population is None else _whole(population, "population"))
        return single_class(model, n, progress)
    if population is not None:
        raise InputError("population", population, "a sweep 1..N only for a single-class model; "
                         "a multi-class model takes each class's population from the model")
    return multi_class(model, progress)


def single_class(model: Network, population: int, progress: Progress | None = None) -> ClosedResult:
    """Exact single-class MVA for n = 1..population (see the module docstring for the recursion)."""
    demand = model.demands[0]
    stations = model.stations
    think = float(model.think_times[0])
    throughput, queue, residence, utilization, empty = _single_class_core(demand, stations, think, population,
                                                                          progress)
    n = np.arange(1, population + 1)
    for k, probability in empty.items():
        if stations[k].kind == "ld":          # busy = not empty; a rate table has no "servers"
            utilization[:, k] = 1 - probability[1:]
    return ClosedResult(
        stations=model.station_names, classes=model.classes[:1],
        populations=n[:, None], throughput=throughput[1:, None],
        response_time=residence.sum(axis=1)[:, None],
        queue_length=queue[:, None, :], residence_time=residence[:, None, :],
        utilization=utilization[:, None, :], time_unit=model.time_unit)


def _single_class_core(demand: np.ndarray, stations: tuple, think: float, population: int,
                       progress: Progress | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
    """X(0..N), Q, R and U (rows n = 1..N, K columns), and p_k(0 | 0..N) per load-dependent station k.

    U is X·D/c per server (X·D, the mean jobs in service, at a delay station).
    """
    per_server = demand / capacities(stations)
    if not any(s.load_dependent for s in stations):
        delay = delay_stations(stations)
        return (*_load_independent(demand, per_server, delay, think, population, progress), {})
    throughput, queue, residence, empty = _load_dependent(demand, stations, think, population, progress)
    return throughput, queue[1:], residence[1:], throughput[1:, None] * per_server, empty


def _load_independent(demand: np.ndarray, per_server: np.ndarray, delay: np.ndarray, think: float,
                      population: int, progress: Progress | None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The plain recursion, O(K·N), compiled (numba): a few milliseconds for K = 100, N = 10,000."""
    shape = (population, demand.size)
    queue, residence, utilization = np.empty(shape), np.empty(shape), np.empty(shape)
    throughput = np.zeros(population + 1)
    queued = np.where(delay, 0.0, demand)    # a delay station's residence is its demand alone
    _recursion(np.ascontiguousarray(demand, dtype=float), queued, per_server, float(think), population,
               throughput, queue, residence, utilization)
    if progress is not None:
        progress(population, population)
    return throughput, queue, residence, utilization


@njit(cache=True)
def _recursion(demand, queued, per_server, think, population, throughput, queue, residence,
               utilization):  # pragma: no cover - compiled
    """R_k = D_k + D_k·Q_k(n − 1) (queued = 0 at delay stations), X = n / (Z + ΣR), Q = X·R, U = X·D/c.

    Row i of queue, residence and utilization holds population n = i + 1.
    """
    for i in range(population):
        total = think
        for k in range(demand.size):
            previous = queue[i - 1, k] if i > 0 else 0.0
            residence[i, k] = demand[k] + queued[k] * previous
            total += residence[i, k]
        x = (i + 1) / total
        throughput[i + 1] = x
        for k in range(demand.size):
            queue[i, k] = x * residence[i, k]
            utilization[i, k] = x * per_server[k]


def _load_dependent(demand: np.ndarray, stations: tuple, think: float, population: int,
                    progress: Progress | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Recursion with marginal probabilities at load-dependent stations (module docstring)."""
    delay = delay_stations(stations)
    ld = [k for k, s in enumerate(stations) if s.load_dependent]
    li = ~delay & np.array([not s.load_dependent for s in stations])
    weights = {k: np.arange(1, population + 1) / stations[k].rate_multipliers(population) for k in ld}
    inverse_rates = {k: 1.0 / stations[k].rate_multipliers(population) for k in ld}
    marginal = {k: np.concatenate([[1.0], np.zeros(population)]) for k in ld}
    empty = {k: np.ones(population + 1) for k in ld}
    others = {k: _complement_throughput(demand, stations, think, population, k) for k in ld}
    queue = np.zeros((population + 1, demand.size))
    residence = np.zeros((population + 1, demand.size))
    throughput = np.zeros(population + 1)
    step = max(population // 100, 1)
    for n in range(1, population + 1):
        residence[n, li] = demand[li] * (1 + queue[n - 1, li])
        residence[n, delay] = demand[delay]
        for k in ld:
            residence[n, k] = demand[k] * np.dot(weights[k][:n], marginal[k][:n])
        x = n / (think + residence[n].sum())
        throughput[n] = x
        queue[n] = x * residence[n]
        for k in ld:
            current = np.zeros(population + 1)
            current[1:n + 1] = demand[k] * x * inverse_rates[k][:n] * marginal[k][:n]
            other = others[k][n]
            current[0] = marginal[k][0] * x / other if other > 0 else 0.0
            marginal[k] = current
            empty[k][n] = current[0]
        if progress is not None and n % step == 0:
            progress(n, population)
    return throughput, queue, residence, empty


def _complement_throughput(demand: np.ndarray, stations: tuple, think: float, population: int,
                           removed: int) -> np.ndarray:
    """X^{−k}(0..N): throughput with station ``removed`` taken out (0 if no station or think time is left)."""
    keep = [k for k in range(demand.size) if k != removed]
    if not keep:
        return np.arange(population + 1) / think if think > 0 else np.zeros(population + 1)
    throughput, *_ = _single_class_core(demand[keep], tuple(stations[k] for k in keep), think, population)
    return throughput


def multi_class(model: Network, progress: Progress | None = None) -> ClosedResult:
    """Exact multi-class MVA over the population lattice, one population level at a time.

    Stations must be queueing or delay stations (product form, load
    independent); a multi-server station in a multi-class model is refused.
    Cost: (Π_c (N_c + 1)) · C · K operations and Π_c (N_c + 1) · K memory.
    """
    refuse_load_dependent(model.stations, "in a multi-class model (multi and ld: single-class models)")
    populations = model.populations.astype(int)
    demand = model.demands                        # (C, K)
    delay = delay_stations(model.stations)
    n_classes = populations.size
    shape = populations + 1
    strides = np.array([int(np.prod(shape[c + 1:])) for c in range(n_classes)])
    points = np.indices(shape).reshape(n_classes, -1).T          # (points, C)
    level = points.sum(axis=1)
    total_queue = np.zeros((points.shape[0], demand.shape[1]))
    order = np.argsort(level, kind="stable")
    bounds = np.searchsorted(level[order], np.arange(level.max() + 2))
    think = model.think_times
    for m in range(1, level.max() + 1):
        index = order[bounds[m]:bounds[m + 1]]
        jobs = points[index]                                     # (P, C)
        residence = np.empty((index.size, n_classes, demand.shape[1]))
        for c in range(n_classes):
            before = np.where(jobs[:, c] > 0, index - strides[c], index)
            residence[:, c, :] = demand[c] * np.where(delay, 1.0, 1.0 + total_queue[before])
        cycle = think + residence.sum(axis=2)
        x = np.divide(jobs, cycle, out=np.zeros(cycle.shape), where=jobs > 0)
        total_queue[index] = np.einsum("pc,pck->pk", x, residence)
        if progress is not None:
            progress(m, int(level.max()))
    # the last point's per-class figures
    jobs = populations
    residence = np.empty((n_classes, demand.shape[1]))
    last = int(np.dot(populations, strides))
    for c in range(n_classes):
        before = last - strides[c] if jobs[c] > 0 else last
        residence[c] = demand[c] * np.where(delay, 1.0, 1.0 + total_queue[before])
    x = np.divide(jobs, think + residence.sum(axis=1), out=np.zeros(n_classes), where=jobs > 0)
    return _result(model, populations, x, residence, "exact")


def _result(model: Network, populations: np.ndarray, throughput: np.ndarray, residence: np.ndarray,
            method: str) -> ClosedResult:
    """A one-point ClosedResult from per-class throughput (C,) and residence times (C, K)."""
    residence = np.where(throughput[:, None] > 0, residence, 0.0)
    queue = throughput[:, None] * residence
    utilization = throughput[:, None] * model.demands / capacities(model.stations)
    return ClosedResult(
        stations=model.station_names, classes=model.classes, populations=populations[None, :],
        throughput=throughput[None, :], response_time=residence.sum(axis=1)[None, :],
        queue_length=queue[None], residence_time=residence[None], utilization=utilization[None],
        method=method, time_unit=model.time_unit)


def _refuse_open(model: Network) -> None:
    if model.open_classes.any():
        names = [c for c, is_open in zip(model.classes, model.open_classes, strict=False) if is_open]
        raise InputError(f"arrival_rate of class(es) {names}", "given",
                         "populations only: MVA solves closed classes (open classes: the open solver)")


def _whole(value: object, name: str) -> int:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(name, repr(value), "a whole number ≥ 0") from None
    if number < 0 or number != int(number):
        raise InputError(name, repr(value), "a whole number ≥ 0")
    return int(number)
