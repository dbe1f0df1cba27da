"""Stations with a buffer (finite capacity): open networks that lose jobs, closed ones that block.

Neither is product form; both are declared approximations, measured against
the exact Markov chain (markov.py) on small networks in
tests/networks/test_finite.py and docs/background/accuracy.md.

**Open networks: loss.** A station holding at most B jobs (its buffer) with
c servers is an M/M/c/B queue for the jobs offered to it; an arrival that
finds it full is lost (leaves the network). Each station is taken alone with
Poisson arrivals (decomposition; exact for one station: the catalogue's
M/M/c/K), its blocking probability b_k from the M/M/c/B distribution at the
offered load, and the flows thinned by what is lost upstream, a fixed point
over the traffic equations (with a routing matrix; with visits only, every
station sees its class's full offered visits):

    λ_sj = λ⁰_sj + Σ_{r,i} λ_ri (1 − b_i) P[r, i, s, j],     b_i = M/M/c/B at Σ_r λ_ri S_ri

Classes with different service times share the station's mean service time
(weighted by their offered work) in b and in its mean jobs; each class's
time per visit is the station's, by Little's law. Sources: Kleinrock (1975)
§3.6 (M/M/m/K); the decomposition as in Bolch et al. (2006) ch. 10 (each
station alone, its input the thinned output of the others).

**Closed networks: blocking after service.** One class, queues and delays,
a routing matrix: a job finishing at i whose next station j is full stays at
i, holding its server, until j has room. MVABLO (Akyildiz, "Mean value
analysis for blocking queueing networks", IEEE TSE 14(2), 1988): exact MVA
over N, and where a station's mean queue passes its buffer, it is marked
full: its own queueing term dropped, and the stations feeding it charged its
service time in proportion to the flow they send it:

    t_i(n) = S_i (z_i + Q_i(n − 1)) + B_i,    z_i = 0 once i is full,
    B_j += S_i v_j P_ji / v_i  for each station j feeding a full i

repeated, a station at a time, while any station's mean queue is over its buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel.algorithms.queueing import mmck_blocking, mmck_mean_number
from qmodel.catalogue._compiled import _mmc_waiting_time_value
from qmodel.errors import ConvergenceError, InputError
from qmodel.networks.model import Network

TOLERANCE = 1e-12
MAX_ITERATIONS = 10_000


@dataclass(frozen=True)
class Finite:
    """A network with buffers, approximately: X (C,) per class, R (C, K) seconds per job (all visits), the
    visits made (C, K) where jobs are lost, and the arrivals lost per second (C, K)."""

    throughput: np.ndarray
    residence_time: np.ndarray
    visits: np.ndarray
    lost: np.ndarray


def loss_network(net: Network) -> Finite:
    """An open network whose buffers lose the arrivals that find them full (module docstring)."""
    if net.closed_classes.any():
        raise InputError(
            "population",
            "closed classes with buffers in an open network",
            "an open network (every class with an arrival_rate), or method ctmc",
        )
    visits = net.visit_counts
    per_visit = np.divide(net.demands, visits, out=np.zeros_like(visits), where=visits > 0)
    offered_rate = _chain_rates(net)
    offered = visits * offered_rate[:, None]  # λ_rk offered, no loss
    external = (
        offered
        if net.routing is None
        else np.maximum(offered - np.einsum("ri,risj->sj", offered, net.routing), 0.0)
    )
    blocking = np.zeros(len(net.stations))
    flows = offered
    for _ in range(MAX_ITERATIONS):
        blocking_new, jobs = _stations(net, flows, per_visit)
        passed = flows * (1 - blocking_new)[None, :]
        flows_new = (
            offered if net.routing is None else external + np.einsum("ri,risj->sj", passed, net.routing)
        )
        change = max(
            np.abs(blocking_new - blocking).max(initial=0.0), np.abs(flows_new - flows).max(initial=0.0)
        )
        blocking, flows = blocking_new, flows_new
        if change <= TOLERANCE * max(1.0, flows.max(initial=0.0)):
            break
    else:
        raise ConvergenceError(
            f"the loss network did not converge in {MAX_ITERATIONS} iterations; use "
            "method ctmc for a small network"
        )
    _, jobs = _stations(net, flows, per_visit)
    served = flows * (1 - blocking)[None, :]
    total = served.sum(axis=0)
    share = np.divide(served, total[None, :], out=np.zeros_like(served), where=total[None, :] > 0)
    queue = share * jobs[None, :]  # each class's part of the station's jobs
    rate = np.where(offered_rate > 0, offered_rate, 1.0)
    return Finite(offered_rate, queue / rate[:, None], served / rate[:, None], flows * blocking[None, :])


def _chain_rates(net: Network) -> np.ndarray:
    if net.chains is None:
        return net.arrival_rates.copy()
    return np.bincount(net.chains, weights=net.arrival_rates)[net.chains]


def _stations(net: Network, flows: np.ndarray, per_visit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(blocking probability, mean jobs) of each station as an M/M/c/B queue (M/M/c, no loss, without a
    buffer; a delay: no loss, λS jobs) under the offered flows (C, K)."""
    blocking = np.zeros(len(net.stations))
    jobs = np.zeros(len(net.stations))
    for k, station in enumerate(net.stations):
        rate = flows[:, k].sum()
        if rate <= 0:
            continue
        mean_service = float((flows[:, k] * per_visit[:, k]).sum() / rate)
        load = rate * mean_service
        if station.infinite:
            jobs[k] = load
            continue
        servers = station.servers if station.kind == "multi" else 1
        if station.kind not in ("queue", "multi", "delay"):
            raise InputError(
                f"station {station.name!r}: type",
                station.kind,
                "queue, multi or delay with buffers in an open network (or method ctmc)",
            )
        if station.buffer is None:
            if load >= servers:
                raise InputError(
                    f"utilization of station {station.name!r}",
                    f"{load / servers:.4g}",
                    "below 1 (or a buffer)",
                    reason="the open classes saturate it",
                )
            wait = float(
                _mmc_waiting_time_value(np.float64(servers), np.float64(load), np.float64(mean_service))
            )
            jobs[k] = rate * (wait + mean_service)
            continue
        servers = min(servers, station.buffer)  # a buffer below the servers leaves some idle
        blocking[k] = float(mmck_blocking(servers, station.buffer, load))
        jobs[k] = float(mmck_mean_number(servers, station.buffer, load))
    return blocking, jobs


def mvablo(net: Network, population: int) -> Finite:
    """MVABLO (Akyildiz 1988) for a single-class closed network with a routing matrix (module docstring)."""
    if len(net.classes) != 1 or net.routing is None:
        raise InputError(
            "network",
            "a closed network with buffers",
            "one class and a routing matrix (who blocks whom) for the blocking approximation; or method ctmc",
        )
    for station in net.stations:
        if station.kind not in ("queue", "delay"):
            raise InputError(
                f"station {station.name!r}: type",
                station.label,
                "queue or delay in a closed network with buffers (or method ctmc)",
            )
    capacity = sum(s.buffer if s.buffer else population for s in net.stations)
    if population >= capacity:
        raise InputError(
            "population",
            population,
            f"fewer jobs than the buffers hold ({capacity}): the network would deadlock",
        )
    visits = net.visit_counts[0]
    routing = net.routing[0, :, 0, :]
    per_visit = np.divide(net.demands[0], visits, out=np.zeros_like(visits), where=visits > 0)
    delay = net.infinite
    limit = np.array([s.buffer if s.buffer else np.inf for s in net.stations], float)
    think = float(net.think_times[0])
    queue = np.zeros(len(net.stations))
    extra = np.zeros(len(net.stations))
    full = np.zeros(len(net.stations), dtype=bool)
    throughput = 0.0
    per_job = np.zeros(len(net.stations))
    for n in range(1, population + 1):
        while True:
            per_job = np.where(delay, per_visit, per_visit * (np.where(full, 0.0, 1.0) + queue)) + extra
            throughput = n / (think + float(visits @ per_job))
            new_queue = throughput * visits * per_job
            over = np.flatnonzero(new_queue > limit)  # a full station still over: charged again
            if over.size == 0:
                break
            i = int(over[0])
            full[i] = True
            feeding = np.divide(
                visits * routing[:, i], visits[i], out=np.zeros_like(visits), where=visits[i] > 0
            )
            extra = extra + per_visit[i] * feeding
        queue = new_queue
    residence = (visits * per_job)[None, :]
    return Finite(
        np.array([throughput]), residence, net.visit_counts.copy(), np.zeros((1, len(net.stations)))
    )
