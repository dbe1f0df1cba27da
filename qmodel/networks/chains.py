"""Class switching: a network whose classes form chains is solved as the network of its chains.

Within a chain, jobs change class as they are routed (routing.py), so only
the chain's population (closed) or arrival rate (open) is fixed. The chain
network has one class per chain q with (Bolch et al. 2006, §8.3, the
"chain concept"; Octave's qncmmva with a routing matrix does the same)

    D_qk = Σ_{r in q} D_rk,     V_qk = Σ_{r in q} v_rk,     N_q = Σ_{r in q} N_r,     λ_q = Σ_{r in q} λ_r

and is solved by any method. In a product-form network a class r job at
station k sees the chain's state, so its residence time (per chain cycle),
queue length and utilization are the chain's in proportion to its demand:

    R_rk = R_qk · D_rk / D_qk,     Q_rk = X_q R_rk,     U_rk = U_qk · D_rk / D_qk

(exact MVA's R = D · Σ_j j/α(j) p(j − 1 | n − e_q) is linear in D at every
station type). A class's throughput is its chain's: cycles (closed) or
arrivals (open) per second, so X_q · v_rk is its throughput at station k.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from qmodel.networks.model import Network
from qmodel.networks.results import NetworkResult


def chain_network(net: Network) -> Network:
    """The network of ``net``'s chains: one class each, demands, visits and jobs summed over its classes."""
    assert net.chains is not None
    count = int(net.chains.max()) + 1
    member = np.zeros((count, len(net.classes)))
    member[net.chains, np.arange(len(net.classes))] = 1.0
    names = tuple("+".join(np.array(net.classes)[net.chains == q]) for q in range(count))
    first = np.array([int(np.flatnonzero(net.chains == q)[0]) for q in range(count)])
    return replace(
        net,
        classes=names,
        demands=member @ net.demands,
        think_times=net.think_times[first],
        populations=member @ net.populations,
        arrival_rates=member @ net.arrival_rates,
        visits=None if net.visits is None else member @ net.visits,
        chains=None,
        routing=None,
    )


def chain_populations(net: Network, counts: np.ndarray) -> np.ndarray:
    """(Q,) each chain's population from one per class (C,)."""
    assert net.chains is not None
    return np.bincount(net.chains, weights=counts, minlength=int(net.chains.max()) + 1)


def class_result(net: Network, chain: NetworkResult, counts: np.ndarray) -> NetworkResult:
    """Per-class figures of ``net`` from its chain network's result (module docstring); ``counts`` (C,)
    the populations the classes were given."""
    assert net.chains is not None
    totals = chain.network.demands[net.chains]
    share = np.divide(net.demands, totals, out=np.zeros_like(net.demands), where=totals > 0)
    throughput = chain.throughput[net.chains]
    residence = chain.residence_time[net.chains] * share
    return NetworkResult(
        network=net,
        method=chain.method,
        populations=counts.astype(int),
        throughput=throughput,
        response_time=residence.sum(axis=1),
        utilization=chain.utilization[net.chains] * share,
        queue_length=throughput[:, None] * residence,
        residence_time=residence,
        curve=chain.curve,
        points=tuple(class_result(net, point, counts) for point in chain.points),
    )
