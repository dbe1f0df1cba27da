"""Multi-class throughput bounds tighter than the asymptotic ones: balanced system and composite bounds.

Kerola, "The composite bound method for computing throughput bounds in
multiple class environments", Performance Evaluation 6(1), 1986 (Purdue
CSD-TR-475, 1984). With D_c the class's total demand (delays included),
D_c,max and D_c,min its largest and smallest demand at a queue it visits, K_c
those queues and |N| the jobs of every class. In the product form a class-c
job's residence at a queue is D_ck (1 + Q_k(N − e_c)), and Σ_k Q_k(N − e_c)
is at most |N| − 1 — exactly that where no class thinks or visits a delay,
so that every other job is at a queue; if class c visits every queue any
class visits, each of them adds at least D_c,min:

    N_c / (Z_c + D_c + (|N| − 1) D_c,max)  ≤  X_c  ≤  N_c / ((K_c + |N| − 1) D_c,min)

composite bound (no station works past its capacity c_k while the other
classes do at least their lower bounds):

    X_c ≤ min_k (c_k − Σ_{s≠c} X_s⁻ D_sk) / D_ck

Each is kept where it is tighter than the asymptotic bounds of
qmodel.networks.bounds.class_bounds (which hold for every station type); the
balanced ones need single-server queues and delays, the upper one no think
time and no delay, and a class that visits every queue in use.
"""

from __future__ import annotations

import numpy as np

from qmodel.networks.bounds import ClassBounds, class_bounds
from qmodel.networks.model import Network


def composite_bounds(net: Network, populations: np.ndarray) -> ClassBounds:
    """Per-class X [1/s] and R [s] bounds of a closed network at ``populations`` (C,), the tightest of the
    asymptotic, balanced system and composite bounds (module docstring)."""
    counts = np.asarray(populations, float)
    asymptotic = class_bounds(net, counts)
    lower, upper = asymptotic.throughput_lower.copy(), asymptotic.throughput_upper.copy()
    net = net.within(int(counts.sum()))
    demand = net.demands
    delay = net.infinite
    total = counts.sum()
    simple = all(s.infinite or (not s.load_dependent and s.capacity == 1) for s in net.stations)
    with np.errstate(divide="ignore", invalid="ignore"):
        if simple:
            queues = np.where(delay[None, :], 0.0, demand)
            largest = queues.max(axis=1, initial=0.0)
            balanced_lower = counts / (net.think_times + demand.sum(axis=1) + (total - 1) * largest)
            lower = np.where(counts > 0, np.maximum(lower, balanced_lower), 0.0)
            used = demand.sum(axis=0) > 0
            if not delay[used].any() and not net.think_times.any():
                visited = queues > 0
                covers = (visited | ~used[None, :]).all(axis=1)  # visits every queue in use
                smallest = np.where(visited, queues, np.inf).min(axis=1, initial=np.inf)
                balanced_upper = counts / ((visited.sum(axis=1) + total - 1) * smallest)
                upper = np.where(covers & np.isfinite(smallest), np.minimum(upper, balanced_upper), upper)
        capacity = np.array([np.inf if s.infinite else s.capacity for s in net.stations])
        others = (lower[:, None] * demand).sum(axis=0)[None, :] - lower[:, None] * demand
        room = np.where(demand > 0, (capacity[None, :] - others) / demand, np.inf)
        upper = np.where(counts > 0, np.minimum(upper, np.maximum(room.min(axis=1), lower)), 0.0)
        response_lower = np.where(counts > 0, counts / upper - net.think_times, 0.0)
        response_upper = np.where(counts > 0, counts / lower - net.think_times, 0.0)
    return ClassBounds(upper, lower, response_lower, response_upper)
