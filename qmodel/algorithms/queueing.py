"""Stable recursions for the queues whose closed forms overflow: Erlang B, Erlang C, M/M/c/K.

All functions take numpy arrays (a scalar is a 0-d array), broadcast them, and
never form a factorial or a power of the load, so they stay accurate for
thousands of servers and loads close to saturation. Inputs are assumed valid
(the catalogue's domains and constraints are checked before these run).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

_RESCALE_ABOVE = 1e250


def erlang_b(servers: ArrayLike, offered_load: ArrayLike) -> np.ndarray:
    """Erlang B blocking probability B(c, a) for c servers and offered load a (erlangs).

    Recursion B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)) (Jagerman 1974): every
    step is a ratio of positive numbers, so there is no overflow or cancellation.
    Cost: max(c) vectorized steps.
    """
    servers, load = np.broadcast_arrays(np.asarray(servers, float), np.asarray(offered_load, float))
    # largest server counts first: the elements still recursing at step k are a prefix
    order = np.argsort(-servers, axis=None, kind="stable")
    counts = servers.ravel()[order]
    loads = load.ravel()[order]
    blocking = np.ones(counts.size)
    carried, denominator = np.empty(counts.size), np.empty(counts.size)
    final = np.ones(counts.size)                 # B(0) = 1 for zero servers
    last = counts.size - 1                       # last element not yet finished
    while last >= 0 and counts[last] < 1:
        last -= 1
    b, a, t, d = blocking, loads, carried, denominator
    for k in range(1, int(counts.max(initial=0)) + 1):
        np.multiply(a, b, out=t)                 # a·B(k−1)
        np.add(t, k, out=d)                      # k + a·B(k−1)
        np.divide(t, d, out=b)
        while last >= 0 and counts[last] < k + 1:  # these have their B(c): keep it
            final[last] = blocking[last]
            last -= 1
        if 4 * (last + 1) < 3 * b.size:          # drop the finished quarter from the work
            b, a, t, d = blocking[:last + 1], loads[:last + 1], carried[:last + 1], denominator[:last + 1]
    result = np.empty(counts.size)
    result[order] = final
    return result.reshape(servers.shape)


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
