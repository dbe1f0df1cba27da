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

_BISECTION_STEPS = 80  # halvings of (0, k): far below float resolution
_AGREEMENT = 1e-9  # C(c, a) <= target within this relative slack counts as meeting it


def load_for_delayed_fraction(subchannels: ArrayLike, delayed_fraction: ArrayLike) -> np.ndarray:
    """The offered load a (erlangs) at which Erlang C on k subchannels equals the delayed fraction.

    Solves C(k, a) = del for 0 < a < k by bisection: C rises monotonically from
    0 at a = 0 to 1 as a → k.
    """
    servers, delayed = np.broadcast_arrays(np.asarray(subchannels, float),
                                           np.asarray(delayed_fraction, float))
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

    low = np.floor(load)                 # unstable: never meets the target
    high = low + 1
    step = np.ones(load.shape)
    while not (done := met(high)).all():
        low = np.where(done, low, high)
        high = np.where(done, high, high + step)
        step = np.where(done, step, 2 * step)
    while (high - low > 1).any():        # met(high), not met(low)
        middle = np.floor((low + high) / 2)
        ok = met(middle)
        high = np.where(ok & (high - low > 1), middle, high)
        low = np.where(~ok & (high - low > 1), middle, low)
    return high


def erlang_c_subchannels(measured_subchannels: ArrayLike, delayed_fraction: ArrayLike,
                         target_delayed: ArrayLike) -> dict[str, np.ndarray]:
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


def erlang_c_subchannels_from_rate(request_rate: ArrayLike, service_time: ArrayLike,
                                   target_delayed: ArrayLike) -> dict[str, np.ndarray]:
    """Subchannels for a target delayed fraction, from request rate (1/s) × service time (s).

    Outputs: offered_load (erlangs), subchannels (whole), wait_probability at that c.
    """
    load = np.asarray(request_rate, float) * np.asarray(service_time, float)
    servers = smallest_subchannels(load, target_delayed)
    return {"offered_load": load, "subchannels": servers,
            "wait_probability": erlang_c(servers, load)}


def paired_links(links: int) -> int:
    """Links as planners configure them: in pairs, so that losing one link leaves the other (even count)."""
    return int(2 * np.ceil(links / 2))
