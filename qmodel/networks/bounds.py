"""Asymptotic and balanced job bounds on a single-class closed network (Lazowska et al., QSP ch. 5).

With D the total demand at the queueing stations, Z the think time plus the
demand at delay stations, D_max the largest demand per server and D_avg = D/K
over the K queueing stations:

    asymptotic:   N / (N·D + Z)  ≤  X(N)  ≤  min(N / (D + Z), 1 / D_max)
    balanced job: N / (D + Z + (N − 1)·D_max / (1 + Z / (N·D)))  ≤  X(N)
                  X(N)  ≤  min(1 / D_max, N / (D + Z + (N − 1)·D_avg / (1 + Z / D)))

and R(N) = N / X(N) − Z for the matching response-time bounds (Jain,
eq. 33.x and 34.8–34.9). Balanced job bounds assume single-server queueing
stations; with a multi-server or load-dependent station only the asymptotic
bounds are given (D_max then uses demand / servers, and the pessimistic bound
serves every job at the station's slowest rate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel.errors import InputError
from qmodel.networks.model import Network


@dataclass(frozen=True)
class Bounds:
    """Throughput and response-time bounds for N = populations; the optimistic bound's binding term named."""

    populations: np.ndarray           # (P,)
    throughput_upper: np.ndarray      # (P,) jobs per time unit: the tighter optimistic bound
    throughput_lower: np.ndarray      # (P,) the tighter pessimistic bound
    response_lower: np.ndarray        # (P,) time in the stations, think time excluded
    response_upper: np.ndarray        # (P,)
    binding: tuple[str, ...]          # (P,) which bound sets throughput_upper
    balanced: bool                    # whether balanced job bounds were applicable
    bottleneck: str                   # the station with the largest demand per server
    knee: float                       # N* = (D + Z) / D_max, where the asymptotes cross


def closed_bounds(model: Network, populations: np.ndarray | int) -> Bounds:
    """Asymptotic and (where applicable) balanced job bounds of a single-class closed network."""
    if model.demands.shape[0] != 1:
        raise InputError("classes", len(model.classes), "one class: bounds are for single-class models")
    n = np.atleast_1d(np.asarray(populations, float))
    demand = model.demands[0]
    delay = model.infinite
    capacity = np.where(delay, 1.0, model.capacities)
    total = float(demand[~delay].sum())
    think = float(model.think_times[0] + demand[delay].sum())
    per_server = np.where(delay, 0.0, demand / capacity)
    bottleneck = int(np.argmax(per_server))
    d_max = float(per_server[bottleneck])
    if d_max == 0:
        raise InputError("demand", "0 at every queueing station", "a positive demand somewhere, or the "
                         "network has no queueing to bound")
    balanced = not any(s.load_dependent for s in model.stations)
    light = n / (total + think)
    heavy = np.full(n.shape, 1 / d_max)
    upper = np.minimum(light, heavy)
    # pessimistic: every job queues behind all others, served at the slowest rate
    slowest = np.array([1.0 if s.infinite else min(s.rate_table) for s in model.stations])
    lower = n / (n * float((demand / slowest)[~delay].sum()) + think)
    names = model.station_names
    binding = [f"bottleneck {names[bottleneck]}: 1/D_max" if h <= t else "no queueing: N/(D + Z)"
               for t, h in zip(light, heavy, strict=True)]
    if balanced:
        stations = int((~delay).sum())
        average = total / stations
        bjb_upper = n / (total + think + (n - 1) * average / (1 + think / total))
        bjb_lower = n / (total + think + (n - 1) * d_max / (1 + think / (n * total)))
        binding = ["balanced job: N/(D + Z + (N−1)·D_avg/(1 + Z/D))" if b < u else name
                   for b, u, name in zip(bjb_upper, upper, binding, strict=True)]
        upper = np.minimum(upper, bjb_upper)
        lower = np.maximum(lower, bjb_lower)
    return Bounds(populations=n, throughput_upper=upper, throughput_lower=lower,
                  response_lower=n / upper - model.think_times[0],
                  response_upper=n / lower - model.think_times[0],
                  binding=tuple(binding), balanced=balanced, bottleneck=names[bottleneck],
                  knee=(total + think) / d_max)
