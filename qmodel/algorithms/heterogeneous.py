"""The M/M/m queue with heterogeneous servers: exact, for the two ways of assigning jobs to servers.

Servers i = 1..m serve at rates μ_i (jobs per second); Poisson arrivals at
rate λ; one queue, FCFS; stable while λ < Σ μ_i (ρ = λ / Σ μ_i < 1).

**Fastest free server, jobs stay** (no migration): an arrival that finds a
server free takes the fastest free one and stays there. The busy set B is
the state while fewer than m jobs are present; with all m busy the jobs
waiting form a geometric tail (every completion then frees a server that the
queue's head takes at once, so the total rate is Σ μ), aggregated into one
state A with P(m + j jobs | A) = (1 − ρ) ρ^j. The chain on the 2^m − 1 proper
busy sets and A (Bolch, Greiner, de Meer & Trivedi 2006, §6.? heterogeneous
multiple servers; the tail as in Singh, "Queue-dependent servers", J. Eng.
Math. 1970 for m = 2) is solved by GTH (qmodel.algorithms.stationary):

    B → B ∪ {fastest free}  at λ          B → B \\ {i}  at μ_i
    A → all \\ {i}          at μ_i (1 − ρ)

    P(wait) = π_A,   L_q = π_A ρ / (1 − ρ),   W = L_q / λ,
    L = Σ_B |B| π_B + π_A (m + ρ / (1 − ρ)),   T = L / λ,   U_i = π_A + Σ_{B ∋ i} π_B

**The n fastest busy** (migration: a job moves to a faster server as one
frees): a birth–death chain with rate α(n) = the sum of the n largest μ,
the load-dependent station ``hetero`` of qmodel.networks.stations, product
form in any network. With equal rates both are the M/M/c queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from qmodel.algorithms.stationary import stationary
from qmodel.errors import InputError

MAX_SERVERS = 12  # 2^12 busy sets: the chain's dense elimination stays under a second


@dataclass(frozen=True)
class HeterogeneousQueue:
    """The means of an M/M/m queue with heterogeneous servers (times in seconds)."""

    wait_probability: float
    waiting_time: float  # seconds queued before service
    response_time: float  # seconds in the system
    number_in_system: float
    utilization: np.ndarray  # (m,) each server's busy fraction, in the order given


def fastest_free(arrival_rate: float, service_rates: list[float] | np.ndarray) -> HeterogeneousQueue:
    """The exact means of the M/M/m queue whose arrivals take the fastest free server and stay there
    (module docstring). ``arrival_rate`` and ``service_rates`` in jobs per second."""
    rates = np.asarray(service_rates, float)
    if rates.ndim != 1 or rates.size == 0 or not np.all(np.isfinite(rates)) or np.any(rates <= 0):
        raise InputError("service_rates", repr(list(np.atleast_1d(rates))), "one positive rate per server")
    if rates.size > MAX_SERVERS:
        raise InputError(
            "service_rates",
            f"{rates.size} servers",
            f"at most {MAX_SERVERS} (2^m busy sets)",
            reason="too large to compute",
        )
    if not np.isfinite(arrival_rate) or arrival_rate <= 0:
        raise InputError("arrival_rate", arrival_rate, "a positive rate, jobs per second")
    load = arrival_rate / rates.sum()
    if load >= 1:
        raise InputError(
            "utilization", f"{load:.4g}", "below 1", reason="arrivals exceed what the servers serve"
        )
    servers = rates.size
    order = np.argsort(-rates, kind="stable")  # fastest first
    subsets = [frozenset(c) for size in range(servers) for c in combinations(range(servers), size)]
    index = {subset: number for number, subset in enumerate(subsets)}
    tail = len(subsets)  # the state A: all busy
    transitions = np.zeros((tail + 1, tail + 1))
    for subset, number in index.items():
        free = next(int(i) for i in order if i not in subset)
        grown = subset | {free}
        transitions[number, index.get(grown, tail)] += arrival_rate
        for i in subset:
            transitions[number, index[subset - {i}]] += rates[i]
    everyone = frozenset(range(servers))
    for i in range(servers):
        transitions[tail, index[everyone - {i}]] += rates[i] * (1 - load)
    probability = stationary(transitions, "the heterogeneous-server queue")
    waiting = probability[tail]
    queued = waiting * load / (1 - load)
    busy = waiting + np.array(
        [sum(probability[n] for s, n in index.items() if i in s) for i in range(servers)]
    )
    jobs = sum(len(s) * probability[n] for s, n in index.items()) + waiting * servers + queued
    return HeterogeneousQueue(
        float(waiting), float(queued / arrival_rate), float(jobs / arrival_rate), float(jobs), busy
    )
