"""Coupling-facility subchannels sized by Erlang C (the queueing answer to Appendix B's question).

A subchannel is held for the whole life of a CF request, so the subchannels of
a z/OS image to a CF form an M/M/c queue: c servers, offered load a = request
rate × service time, and the delayed fraction RMF reports is Erlang C's
probability of waiting. Compare the study's rule of thumb (catalogue entry
``subchannel_rule``), which assumes each subchannel busy independently.

Functions return their outputs by name in SI units, as catalogue model entries do.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from qmodel.algorithms.queueing import erlang_c
from qmodel.limits import refuse_long_loop

_BISECTION_STEPS = 80  # halvings of (0, k): far below float resolution
_AGREEMENT = 1e-9  # C(c, a) <= target within this relative slack counts as meeting it


def batch_erlang_c(servers: ArrayLike, offered_load: ArrayLike, mean_batch: ArrayLike) -> np.ndarray:
    """Share of requests that wait in an M^X/M/c queue with geometric batches (a batch Erlang C).

    Requests arrive in batches (a commit's page writes to a secondary group buffer pool) whose size is
    geometric with mean m >= 1, P(X = k) = (1 − q)·q^(k−1), q = 1 − 1/m; ``offered_load`` a is
    requests per second × mean service time (erlangs), a < c. With β = a/m (batch rate × service)
    the cut equations of the chain give, for n <= c, S_n = Σ_{j<=n} π_j q^(n−j) = Π_{k=1..n} (q + β/k)
    (π_0 = 1, π_n = β·S_{n−1}/n), and past c a geometric tail of ratio q + β/c; a request waits if
    the batch finds c or more in the system or, finding n < c, it is past the (c − n)-th of its batch
    (probability q^(c−n), the sizes being memoryless). So

        delayed = c·S_c / ((c − a)·Σ_{n<=c} π_n + a·S_c) = c·U / ((c − a) + a·U),

    U = S_c / Σ_{n<=c} π_n from the recursion U_0 = 1, U_n = U_{n−1}·(q + β/n) / (1 + U_{n−1}·β/n),
    each step a ratio of positive numbers (no overflow). At m = 1 (q = 0) it is Jagerman's Erlang B
    recursion and the result is Erlang C; at no load it is q^c, the chance that a batch is longer
    than c. The bulk-input chain is Gross & Harris's (Fundamentals of Queueing Theory, 3rd ed. 1998,
    §3.1, M^[X]/M/1) taken to c servers; the closed form is derived in docs/background/environment1.md.
    Catalogue entry ``batch_erlang_c``.
    """
    servers, load, batch = np.broadcast_arrays(
        np.asarray(servers, float), np.asarray(offered_load, float), np.asarray(mean_batch, float)
    )
    refuse_long_loop(
        float(servers.max(initial=0)),
        servers.size,
        "servers",
        "fewer servers (the batch recursion takes one step per server)",
    )
    queued = 1.0 - 1.0 / batch  # q
    arriving = load / batch  # β
    ratio = np.ones(servers.shape)  # U_n
    for n in range(1, int(servers.max(initial=0)) + 1):
        step = ratio * (queued + arriving / n) / (1.0 + ratio * arriving / n)
        ratio = np.where(n <= servers, step, ratio)
    return servers * ratio / ((servers - load) + load * ratio)


def load_for_delayed_fraction(subchannels: ArrayLike, delayed_fraction: ArrayLike) -> np.ndarray:
    """The offered load a (erlangs) at which Erlang C on k subchannels equals the delayed fraction.

    Solves C(k, a) = del for 0 < a < k by bisection: C rises monotonically from
    0 at a = 0 to 1 as a → k.
    """
    servers, delayed = np.broadcast_arrays(
        np.asarray(subchannels, float), np.asarray(delayed_fraction, float)
    )
    low, high = np.zeros(servers.shape), servers.copy()
    for _ in range(_BISECTION_STEPS):
        middle = (low + high) / 2
        above = erlang_c(servers, middle) > delayed
        high = np.where(above, middle, high)
        low = np.where(above, low, middle)
    return (low + high) / 2


def smallest_subchannels(offered_load: ArrayLike, target_delayed: ArrayLike) -> np.ndarray:
    """The smallest whole c > a with Erlang C(c, a) <= target (to a relative 1e-9).

    C(c, a) falls as c grows, from 1 at the stability bound c → a towards 0, so
    the answer is bracketed by galloping up from the smallest stable c = floor(a) + 1
    (steps 1, 2, 4, ...) and then found by bisection: O(log c) Erlang evaluations,
    where adding one subchannel at a time would take O(√a) of them.
    """
    load, target = np.broadcast_arrays(np.asarray(offered_load, float), np.asarray(target_delayed, float))

    def met(servers: np.ndarray) -> np.ndarray:
        return erlang_c(servers, load) <= target * (1 + _AGREEMENT)

    low = np.floor(load)  # unstable: never meets the target
    high = low + 1
    step = np.ones(load.shape)
    while not (done := met(high)).all():
        low = np.where(done, low, high)
        high = np.where(done, high, high + step)
        step = np.where(done, step, 2 * step)
    while (high - low > 1).any():  # met(high), not met(low)
        middle = np.floor((low + high) / 2)
        ok = met(middle)
        high = np.where(ok & (high - low > 1), middle, high)
        low = np.where(~ok & (high - low > 1), middle, low)
    return high


def erlang_c_subchannels(
    measured_subchannels: ArrayLike, delayed_fraction: ArrayLike, target_delayed: ArrayLike
) -> dict[str, np.ndarray]:
    """Subchannels for a target delayed fraction, from the fraction measured on k subchannels.

    The offered load is inferred from the measurement (C(k, a) = del), then the
    smallest c with C(c, a) <= target is found. Outputs: offered_load
    (erlangs), subchannels (whole), wait_probability at that c, more_needed
    (subchannels beyond the k measured; 0 when the target is already met).
    """
    load = load_for_delayed_fraction(measured_subchannels, delayed_fraction)
    servers = smallest_subchannels(load, target_delayed)
    return {
        "offered_load": load,
        "subchannels": servers,
        "wait_probability": erlang_c(servers, load),
        "more_needed": np.maximum(servers - np.asarray(measured_subchannels, float), 0.0),
    }


def erlang_c_subchannels_from_rate(
    request_rate: ArrayLike, service_time: ArrayLike, target_delayed: ArrayLike
) -> dict[str, np.ndarray]:
    """Subchannels for a target delayed fraction, from request rate (1/s) × service time (s).

    Outputs: offered_load (erlangs), subchannels (whole), wait_probability at that c.
    """
    load = np.asarray(request_rate, float) * np.asarray(service_time, float)
    servers = smallest_subchannels(load, target_delayed)
    return {"offered_load": load, "subchannels": servers, "wait_probability": erlang_c(servers, load)}


def paired_links(links: int) -> int:
    """Links as planners configure them: in pairs, so that losing one link leaves the other (even count)."""
    return int(2 * np.ceil(links / 2))
