"""Approximate MVA of closed multi-class networks: Bard–Schweitzer and Linearizer.

Both replace the exact recursion's queue lengths at population N − e_c with
an estimate from those at N, and solve the resulting fixed point:

    Q_k^j(N − e_c) ≈ (N − e_c)_j · (F_k^j(N) + Δ_k^{jc})      F_k^j = Q_k^j / N_j

Bard–Schweitzer (Schweitzer 1979; Lazowska et al., QSP §6.4.2) takes Δ = 0.
Linearizer (Chandy & Neuse 1982, Comm. ACM 25(2)) estimates Δ from the
solutions at N − e_c and iterates: three rounds, as in the original. Same
stations as exact multi-class MVA: queueing and delay stations.
"""

from __future__ import annotations

import numpy as np

from qmodel.errors import ConvergenceError
from qmodel.networks.exact import ClosedResult, _refuse_open, _result, multi_class
from qmodel.networks.model import Network, delay_stations, refuse_load_dependent

TOLERANCE = 1e-10
MAX_ITERATIONS = 100_000
LINEARIZER_ROUNDS = 3


def schweitzer(model: Network) -> ClosedResult:
    """Bard–Schweitzer approximate MVA at the model's population vector (Δ = 0 above)."""
    _check(model)
    populations = model.populations.astype(float)
    _queue, throughput, residence = _core(model, populations, np.zeros(_delta_shape(model)))
    return _result(model, model.populations.astype(int), throughput, residence, "schweitzer")


def linearizer(model: Network) -> ClosedResult:
    """Linearizer approximate MVA (Chandy & Neuse 1982) at the model's population vector."""
    _check(model)
    populations = model.populations.astype(float)
    n_classes = populations.size
    delta = np.zeros(_delta_shape(model))
    for _ in range(LINEARIZER_ROUNDS):
        queue, throughput, residence = _core(model, populations, delta)
        fraction = _fraction(queue, populations)
        updated = np.zeros_like(delta)
        for c in range(n_classes):
            if populations[c] == 0:
                continue
            reduced = populations.copy()
            reduced[c] -= 1
            reduced_queue, _, _ = _core(model, reduced, delta)
            updated[:, :, c] = _fraction(reduced_queue, reduced) - fraction
        delta = updated
    queue, throughput, residence = _core(model, populations, delta)
    return _result(model, model.populations.astype(int), throughput, residence, "linearizer")


def approximation_error(model: Network, approximate: ClosedResult) -> dict[str, float]:
    """Largest relative deviation of an approximate solution from exact MVA on the same model.

    Returns ``throughput`` (max over classes of |X − X_exact| / X_exact) and
    ``queue_length`` (max over classes and stations of |Q − Q_exact|, relative
    to the class population).
    """
    exact = multi_class(model)
    x_exact = exact.throughput[0]
    closed = x_exact > 0
    throughput = np.abs(approximate.throughput[0] - x_exact)[closed] / x_exact[closed]
    populations = np.maximum(model.populations, 1)[:, None]
    queue = np.abs(approximate.queue_length[0] - exact.queue_length[0]) / populations
    return {"throughput": float(throughput.max(initial=0.0)), "queue_length": float(queue.max(initial=0.0))}


def _delta_shape(model: Network) -> tuple[int, int, int]:
    n_classes, n_stations = model.demands.shape
    return (n_classes, n_stations, n_classes)    # Δ_k^{jc} stored as [j, k, c]


def _fraction(queue: np.ndarray, populations: np.ndarray) -> np.ndarray:
    """F_k^j = Q_k^j / N_j (0 for an empty class), shape (classes, stations)."""
    return np.divide(queue, populations[:, None], out=np.zeros_like(queue), where=populations[:, None] > 0)


def _core(model: Network, populations: np.ndarray, delta: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fixed point of the approximate recursion at ``populations``: (Q (C, K), X (C,), R (C, K))."""
    demand = model.demands
    queueing = (~delay_stations(model.stations)).astype(float)
    n_classes, n_stations = demand.shape
    active = populations > 0
    queue = np.zeros((n_classes, n_stations))
    queue[active] = (populations[active, None] * (demand[active] > 0)
                     / np.maximum((demand[active] > 0).sum(axis=1, keepdims=True), 1))
    # (N − e_c)_j for every c (rows) and j (columns)
    reduced = populations[None, :] - np.eye(n_classes)
    throughput = np.zeros(n_classes)
    residence = np.zeros((n_classes, n_stations))
    for _ in range(MAX_ITERATIONS):
        fraction = _fraction(queue, populations)                          # [j, k]
        # arrival-instant queue seen by class c at station k: Σ_j (N − e_c)_j (F_k^j + Δ_k^{jc})
        seen = np.einsum("cj,jkc->ck", reduced, fraction[:, :, None] + delta)
        residence = demand * (1 + queueing * np.maximum(seen, 0.0))
        cycle = model.think_times + residence.sum(axis=1)
        throughput = np.divide(populations, cycle, out=np.zeros(n_classes), where=active)
        updated = throughput[:, None] * residence
        change = np.abs(updated - queue).max(initial=0.0)
        queue = updated
        if change <= TOLERANCE * max(populations.max(initial=1.0), 1.0):
            return queue, throughput, residence
    raise ConvergenceError(f"approximate MVA did not converge in {MAX_ITERATIONS} iterations (last change "
                           f"{change:.3g} jobs); use --method exact for this model")


def _check(model: Network) -> None:
    _refuse_open(model)
    refuse_load_dependent(model.stations, "for approximate MVA (multi and ld: exact single-class MVA)")
