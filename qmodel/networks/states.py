"""The normalizing constant and the marginal state probabilities of a closed product-form network.

BCMP's product form (Baskett, Chandy, Muntz & Palacios 1975) gives the
probability of a state as Π_k F_k(n_k) / G(N), with the station factor of a
vector n of jobs by class at station k (α_k(i) its rate with i jobs;
α(i) = i at a delay, the think time a delay of its own):

    F_k(n) = |n|! Π_c D_ck^{n_c} / n_c!  /  Π_{i≤|n|} α_k(i)

and G(N) = Σ over the states of Π_k F_k(n_k), built station by station by
convolution over the population lattice (Buzen 1973; Reiser & Kobayashi
1975 for several chains; Bolch et al. 2006, §8.1):

    G_k(n) = Σ_{m ≤ n} F_k(m) G_{k−1}(n − m)        any station
    G_k(n) = G_{k−1}(n) + Σ_c D_ck G_k(n − e_c)       a single-server queue (α = 1)

everything in logarithms (log-sum-exp), so G of a million jobs neither
overflows nor underflows. From it, exactly and without MVA:

    X_c = G(N − e_c) / G(N)
    p_k(m | N) = F_k(m) G^{−k}(N − m) / G(N)          G^{−k}: every station but k

whose sums over |m| = j are the marginal probabilities p_k(j) of j jobs at
station k, and whose means are the queue lengths. G^{−k} is the convolution
of the stations before k with those after (kept from two passes), so every
marginal costs one lattice convolution more.

Cost: P = Π_c (N_c + 1) lattice points; a queue or a delay P·C (a delay
P·Σ N_c), a multi-server or ld station and each marginal P²/2^C (the pairs
m ≤ n); refused with the estimate where it passes the limits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel.kernels import Kernel
from qmodel.limits import refuse_too_large
from qmodel.networks.model import Network

PAIR_RATE = 2e7  # lattice pairs (m ≤ n) per second, compiled convolution (1.5e7 measured, loaded)
POINT_RATE = 5e6  # point-class steps per second in the queue and delay passes (4e6 to 1e8 measured)


@dataclass(frozen=True)
class States:
    """log G(N), the throughputs it gives, and per station the marginal probabilities and mean jobs."""

    log_constant: float  # log G(N) (natural logarithm; G in the units of the demands, seconds^|N|)
    throughput: np.ndarray  # (C,) jobs per second: G(N − e_c) / G(N)
    marginals: np.ndarray  # (K, |N| + 1) p_k(j), j = 0..|N| jobs at station k
    queue_length: np.ndarray  # (C, K) mean jobs of each class at each station


def estimate_states(net: Network, populations: np.ndarray) -> tuple[float, float]:
    """(bytes, seconds) :func:`convolve` takes: a few arrays of the lattice per station (the two passes
    kept for the marginals), and its passes and convolutions."""
    counts = populations.astype(float)
    points = float(np.prod(counts + 1))
    pairs = float(np.prod((counts + 1) * (counts + 2) / 2))
    stations = len(net.stations)
    general = sum(1 for s in net.stations if not s.infinite and s.load_dependent)
    simple = (stations - general) * points * (len(counts) + counts.sum())
    return 8.0 * points * (2 * stations + 6), (
        simple / POINT_RATE + (general + 2 * stations) * pairs / PAIR_RATE
    )


def convolve(net: Network, populations: np.ndarray) -> States:
    """log G(N), throughputs, marginals and queue lengths of the closed product-form ``net`` at
    ``populations`` (C,) by convolution (module docstring). Units: seconds and jobs per second."""
    counts = populations.astype(np.int64)
    refuse_too_large(
        *estimate_states(net, counts),
        f"the normalizing constant at populations {counts}",
        "smaller populations (the lattice grows as their product), or exact MVA for the means",
    )
    net = net.within(int(counts.sum()))
    shape = counts + 1
    strides = np.array([int(np.prod(shape[c + 1 :])) for c in range(counts.size)], dtype=np.int64)
    points = np.indices(tuple(shape.tolist())).reshape(counts.size, -1).T.astype(np.int64)  # the lattice
    with np.errstate(divide="ignore"):
        log_demand = np.log(net.demands)  # (C, K), −inf where 0
        log_think = np.log(net.think_times)
    empty = np.full(points.shape[0], -np.inf)
    empty[0] = 0.0
    factors = [_log_factor(net, k, points, log_demand[:, k]) for k in range(len(net.stations))]
    before = [_delay(empty, log_think, counts, strides)]  # G of the think time and stations 0..k−1
    for k, station in enumerate(net.stations):
        before.append(
            _add_station(before[-1], station, factors[k], log_demand[:, k], counts, strides, points)
        )
    total = before[-1]
    after = empty
    marginals = np.zeros((len(net.stations), int(counts.sum()) + 1))
    queue = np.zeros(net.demands.shape)
    top = total[-1]
    for k in range(len(net.stations) - 1, -1, -1):
        others = _convolve(before[k], after, points, strides)  # G^{−k}
        weight = _joint(factors[k], others, points, strides) - top  # log p_k(m | N), m ≤ N
        probability = np.exp(weight)
        sizes = points.sum(axis=1)
        marginals[k] = np.bincount(sizes, weights=probability, minlength=marginals.shape[1])
        queue[:, k] = points.T.astype(float) @ probability
        after = _add_station(after, net.stations[k], factors[k], log_demand[:, k], counts, strides, points)
    throughput = np.array(
        [np.exp(total[-1 - strides[c]] - top) if counts[c] > 0 else 0.0 for c in range(counts.size)]
    )
    return States(float(top), throughput, marginals, queue)


def _log_factor(net: Network, k: int, points: np.ndarray, log_demand: np.ndarray) -> np.ndarray:
    """log F_k(m) at every lattice point m (−inf where a class without demand has jobs)."""
    from scipy.special import gammaln

    station = net.stations[k]
    sizes = points.sum(axis=1)
    with np.errstate(invalid="ignore"):
        terms = np.where(points > 0, points * log_demand[None, :], 0.0)
    log = gammaln(sizes + 1) - gammaln(points + 1).sum(axis=1) + terms.sum(axis=1)
    rates = np.log(station.rate_multipliers(int(sizes.max()))) if sizes.max() > 0 else np.zeros(0)
    return log - np.concatenate([[0.0], np.cumsum(rates)])[sizes]


def _add_station(
    constant: np.ndarray,
    station,
    factor: np.ndarray,
    log_demand: np.ndarray,
    counts: np.ndarray,
    strides: np.ndarray,
    points: np.ndarray,
) -> np.ndarray:
    """G with one more station: the queue recursion, the delay's per-class passes, or the convolution."""
    if station.infinite:
        return _delay(constant, log_demand, counts, strides)
    if not station.load_dependent and station.capacity == 1:
        out = constant.copy()
        QUEUE_KERNEL.compiled(out, log_demand, counts, strides)
        return out
    return _convolve(factor, constant, points, strides)


def _delay(
    constant: np.ndarray, log_demand: np.ndarray, counts: np.ndarray, strides: np.ndarray
) -> np.ndarray:
    """A delay station's factor Π_c D_c^{m_c} / m_c! is a product over classes: one pass per class."""
    out = constant.copy()
    for c in range(counts.size):
        if np.isfinite(log_demand[c]) and counts[c] > 0:
            out = _poisson_pass(out, float(log_demand[c]), int(counts[c]), int(strides[c]))
    return out


def _poisson_pass(constant: np.ndarray, log_demand: float, count: int, stride: int) -> np.ndarray:
    """G'(n) = Σ_{j ≤ n_c} D^j / j! · G(n − j e_c), along one class's axis."""
    from scipy.special import gammaln

    shaped = constant.reshape(-1, count + 1, stride)
    j = np.arange(count + 1)
    weights = j * log_demand - gammaln(j + 1)
    out = np.full(shaped.shape, -np.inf)
    for n in range(count + 1):
        out[:, n, :] = _log_sum(weights[: n + 1, None, None] + shaped[:, n::-1, :].transpose(1, 0, 2), axis=0)
    return out.reshape(-1)


def _log_sum(values: np.ndarray, axis: int) -> np.ndarray:
    top = values.max(axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):  # log 0 = −inf: no state there
        return (safe + np.log(np.exp(values - safe).sum(axis=axis, keepdims=True))).squeeze(axis)


def _convolve(first: np.ndarray, second: np.ndarray, points: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """(first ⊛ second)(n) = Σ_{m ≤ n} first(m) second(n − m), in logarithms, over the lattice."""
    out = np.full(first.size, -np.inf)
    CONVOLVE_KERNEL.compiled(first, second, points, strides, out)
    return out


def _joint(factor: np.ndarray, others: np.ndarray, points: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """log F(m) + log G^{−k}(N − m) at every lattice point m."""
    top = points[-1]
    rest = ((top[None, :] - points) * strides[None, :]).sum(axis=1)
    return factor + others[rest]


def _queue_kernel(constant, log_demand, counts, strides):
    """G(n) ← logaddexp(G(n), Σ_c D_c G(n − e_c)) in index order (n − e_c comes first)."""
    n_classes = counts.size
    size = constant.size
    jobs = np.zeros(n_classes, dtype=np.int64)
    for flat in range(1, size):
        rest = flat
        for c in range(n_classes):
            jobs[c] = rest // strides[c]
            rest -= jobs[c] * strides[c]
        top = constant[flat]
        terms = np.full(n_classes, -np.inf)
        for c in range(n_classes):
            if jobs[c] > 0 and log_demand[c] > -np.inf:
                terms[c] = log_demand[c] + constant[flat - strides[c]]
                if terms[c] > top:
                    top = terms[c]
        if top == -np.inf:
            continue
        total = np.exp(constant[flat] - top)
        for c in range(n_classes):
            total += np.exp(terms[c] - top)
        constant[flat] = top + np.log(total)


def _convolve_kernel(first, second, points, strides, out):
    """out(n) = log Σ_{m ≤ n} exp(first(m) + second(n − m)), every n, in two passes (max, then sum)."""
    size, n_classes = points.shape
    for n in range(size):
        top = -np.inf
        for m in range(n + 1):
            inside = True
            for c in range(n_classes):
                if points[m, c] > points[n, c]:
                    inside = False
                    break
            if inside and first[m] > -np.inf:
                value = first[m] + second[n - m]
                if value > top:
                    top = value
        if top == -np.inf:
            continue
        total = 0.0
        for m in range(n + 1):
            inside = True
            for c in range(n_classes):
                if points[m, c] > points[n, c]:
                    inside = False
                    break
            if inside and first[m] > -np.inf:
                total += np.exp(first[m] + second[n - m] - top)
        out[n] = top + np.log(total)


# compiled when first called: numba loads only then (qmodel.kernels)
QUEUE_KERNEL = Kernel(_queue_kernel)
CONVOLVE_KERNEL = Kernel(_convolve_kernel)
