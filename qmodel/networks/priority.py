"""Priority scheduling and FCFS with class-dependent service times: the MVA priority approximation.

Neither is product form. A station that schedules by priority (preemptive
resume, or non-preemptive head of line) or FCFS with service times that
differ by class is solved by the approximation of Bryant, Krzesinski,
Lakshmi & Chandy, "The MVA priority approximation", ACM TOCS 2(4), 1984
(the completion-time form of Chandy & Lakshmi 1983), inside a Bard–Schweitzer
fixed point over the whole network (closed, open and mixed). A class r job
arriving at a single server sees Q_s jobs of each class s (the Schweitzer
estimate (N_s − δ_rs)/N_s · Q_s for a closed class, Q_s itself for an open
one: Poisson arrivals see time averages), utilizations U_s = X_s D_s, and
S_s the service time per visit; H are the classes of higher priority (a
lower number), E those of the same, L those of lower:

    preemptive resume:   r_r = (S_r + Σ_{s∈H∪E} S_s Q_s) / (1 − Σ_{s∈H} U_s)
    non-preemptive:      r_r = S_r + (Σ_{s∈H∪E} S_s (Q_s − U_s) + Σ_{all s} S_s U_s) / (1 − Σ_{s∈H} U_s)

(work ahead of the job, stretched by the higher classes' arrivals while it
waits; in service, exponential residuals). With Poisson arrivals (an open
class at one station) both are exact: Kleinrock's M/G/1 preemptive-resume
time and Cobham's head-of-line wait with exponential service. FCFS is the
one-level case: r_r = S_r + Σ_s S_s Q_s. With one class they are MVA's
S(1 + Q). A station of c servers is split as in Seidmann's method (one
server S/c, a delay S(c − 1)/c; approximate.py); the other stations take
Bard–Schweitzer's forms (a queue: D(1 + Σ_s Q_s); a delay: D).

Errors against the exact Markov chain (markov.py) on generated small
networks: docs/background/accuracy.md and tests/networks/test_priority.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel.errors import ConvergenceError, InputError
from qmodel.kernels import Kernel
from qmodel.limits import refuse_too_large
from qmodel.networks.model import Network

TOLERANCE = 1e-10
STEP_RATE = 1e8  # class-station-class steps per second of the compiled fixed point
TYPICAL_ITERATIONS = 1000  # iterations to converge (tens to hundreds measured; the estimate's margin)
MAX_ITERATIONS = 100_000
DAMP_AFTER = 500  # iterations without convergence before the update is damped (halved)
MIN_WEIGHT = 1 / 64
DELAY, SHARED, PREEMPTIVE, HEAD_OF_LINE, FIRST_COME = 0, 1, 2, 3, 4  # station kinds in the fixed point
KINDS = {
    "": SHARED,
    "ps": SHARED,
    "lcfs-pr": SHARED,
    "fcfs": FIRST_COME,
    "priority": PREEMPTIVE,
    "priority-np": HEAD_OF_LINE,
}


@dataclass(frozen=True)
class Estimate:
    """The approximation's X (C,) in jobs per second and R (C, K) in seconds per job, all visits."""

    throughput: np.ndarray
    residence_time: np.ndarray
    iterations: int


def departures(net: Network) -> list[str]:
    """Why ``net`` is not product form by its scheduling: each station (named) that schedules by priority
    classes of more than one level, or FCFS classes whose service times per visit differ."""
    if not any(station.scheduling in ("fcfs", "priority", "priority-np") for station in net.stations):
        return []  # the common case, at no cost to a quick solve
    visits = net.visit_counts
    per_visit = np.divide(net.demands, visits, out=np.zeros_like(visits), where=visits > 0)
    reasons = []
    for k, station in enumerate(net.stations):
        present = net.demands[:, k] > 0
        if (
            station.scheduling in ("priority", "priority-np")
            and net.priorities is not None
            and np.unique(net.priorities[present]).size > 1
        ):
            reasons.append(f"{station.scheduling} scheduling at {station.name!r}")
        elif (
            station.scheduling == "fcfs"
            and present.any()
            and np.ptp(per_visit[present, k]) > 1e-12 * per_visit[present, k].max()
        ):
            reasons.append(f"fcfs with service times that differ by class at {station.name!r}")
    return reasons


def binding_buffers(net: Network, populations: np.ndarray) -> list[str]:
    """The stations (named) whose buffer can fill: an open class visits it, or the closed classes that
    visit it hold more jobs than it does."""
    reasons = []
    for k, station in enumerate(net.stations):
        present = net.demands[:, k] > 0
        if station.buffer and (
            (present & net.open_classes).any() or populations[present].sum() > station.buffer
        ):
            reasons.append(f"the buffer of {station.buffer} at {station.name!r}")
    return reasons


def priority_mva(net: Network, populations: np.ndarray) -> Estimate:
    """The MVA priority approximation (module docstring) at ``populations`` (C,) of the closed classes."""
    for station in net.stations:
        if station.kind not in ("queue", "multi", "delay"):
            raise InputError(
                f"station {station.name!r}: type",
                station.kind,
                "queue, multi or delay in a "
                "network with priority or class-dependent FCFS scheduling (or method ctmc)",
            )
    if net.switching:
        raise InputError(
            "routing",
            "classes that switch",
            "classes that keep their class where stations "
            "schedule by priority or class-dependent FCFS (or method ctmc)",
        )
    n_classes, n_stations = net.demands.shape
    refuse_too_large(
        64.0 * n_classes * n_stations,
        n_classes**2 * n_stations * TYPICAL_ITERATIONS / STEP_RATE,
        f"the MVA priority approximation of {n_classes} classes at {n_stations:,} stations",
        "fewer classes (merge those of one priority and similar demands) or stations",
    )
    visits = net.visit_counts
    per_visit = np.divide(net.demands, visits, out=np.zeros_like(visits), where=visits > 0)
    servers = np.array(
        [1.0 if s.infinite else float(s.servers if s.kind == "multi" else 1) for s in net.stations]
    )
    kinds = np.array([DELAY if s.infinite else KINDS[s.scheduling] for s in net.stations], dtype=np.int64)
    levels = net.priorities if net.priorities is not None else np.zeros(len(net.classes), dtype=np.int64)
    closed = net.closed_classes
    _refuse_saturated(net, servers)
    throughput = np.zeros(len(net.classes))
    residence = np.zeros(net.demands.shape)
    iterations, change = FIXED_POINT.compiled(
        np.ascontiguousarray(per_visit),
        np.ascontiguousarray(visits, dtype=float),
        kinds,
        servers,
        np.asarray(levels, dtype=np.int64),
        closed,
        np.asarray(populations, float),
        np.where(closed, 0.0, net.arrival_rates),
        np.asarray(net.think_times, float),
        TOLERANCE,
        MAX_ITERATIONS,
        throughput,
        residence,
    )
    if iterations < 0:
        raise ConvergenceError(
            f"the MVA priority approximation did not converge in {MAX_ITERATIONS} "
            f"iterations (last change {change:.3g} jobs); method ctmc for a small network"
        )
    return Estimate(throughput, residence, iterations)


def _refuse_saturated(net: Network, servers: np.ndarray) -> None:
    """An open load a station cannot serve is refused by name (closed classes only slow down)."""
    load = (net.arrival_rates[:, None] * net.demands)[net.open_classes].sum(axis=0)
    for k, station in enumerate(net.stations):
        if not station.infinite and load[k] >= servers[k]:
            raise InputError(
                f"utilization of station {station.name!r}",
                f"{load[k] / servers[k]:.4g}",
                "below 1",
                reason="the open classes alone saturate it",
            )


def _fixed_point(
    service,
    visits,
    kinds,
    servers,
    levels,
    closed,
    populations,
    rates,
    think,
    tolerance,
    max_iterations,
    throughput,
    residence,
):
    """Successive substitution of the module docstring's forms over every class and station; returns
    (iterations, last change), iterations < 0 when it did not converge."""
    n_classes, n_stations = service.shape
    demand = service * visits
    queue = np.zeros((n_classes, n_stations))
    for c in range(n_classes):
        total = demand[c].sum()
        if closed[c]:
            throughput[c] = populations[c] / (think[c] + total) if total + think[c] > 0 else 0.0
            for k in range(n_stations):
                queue[c, k] = populations[c] * demand[c, k] / (think[c] + total) if total > 0 else 0.0
        else:
            throughput[c] = rates[c]
            for k in range(n_stations):
                queue[c, k] = rates[c] * demand[c, k]
    seen = np.zeros(n_classes)  # single-server part: jobs of each class an arrival finds
    busy = np.zeros(n_classes)  # per-server utilization of each class
    weight = 1.0
    change = np.inf
    limit = tolerance * max(populations.max(), 1.0)
    for iteration in range(max_iterations):
        for c in range(n_classes):
            if closed[c] and populations[c] == 0:
                throughput[c] = 0.0
                residence[c, :] = 0.0
                continue
            cycle = think[c]
            for k in range(n_stations):
                if demand[c, k] == 0.0:
                    residence[c, k] = 0.0
                    continue
                if kinds[k] == DELAY:
                    residence[c, k] = demand[c, k]
                    cycle += demand[c, k]
                    continue
                m = servers[k]
                spread = demand[c, k] * (m - 1.0) / m  # Seidmann's delay part
                for s in range(n_classes):
                    share = 1.0
                    if closed[s]:
                        share = (
                            (populations[s] - (1.0 if s == c else 0.0)) / populations[s]
                            if populations[s] > 0
                            else 0.0
                        )
                    own = max(queue[s, k] - throughput[s] * demand[s, k] * (m - 1.0) / m, 0.0)
                    seen[s] = own * share
                    busy[s] = throughput[s] * demand[s, k] / m * share
                if kinds[k] == SHARED:
                    jobs = 0.0
                    for s in range(n_classes):
                        jobs += seen[s]
                    value = demand[c, k] / m * (1.0 + jobs)
                else:
                    ahead, higher, residual = 0.0, 0.0, 0.0
                    ranked = kinds[k] != FIRST_COME  # FCFS: every class on one level
                    for s in range(n_classes):
                        if ranked and levels[s] < levels[c]:
                            higher += throughput[s] * demand[s, k] / m
                        if not ranked or levels[s] <= levels[c]:
                            waiting = max(seen[s] - busy[s], 0.0) if kinds[k] == HEAD_OF_LINE else seen[s]
                            ahead += service[s, k] / m * waiting
                        residual += service[s, k] / m * busy[s]
                    room = max(1.0 - higher, 1e-12)
                    if kinds[k] != HEAD_OF_LINE:
                        value = visits[c, k] * (service[c, k] / m + ahead) / room
                    else:
                        value = demand[c, k] / m + visits[c, k] * (ahead + residual) / room
                residence[c, k] = value + spread
                cycle += residence[c, k]
            throughput[c] = populations[c] / cycle if closed[c] else rates[c]
        if iteration > 0 and iteration % DAMP_AFTER == 0:
            weight = max(weight / 2, MIN_WEIGHT)
        change = 0.0
        for c in range(n_classes):
            for k in range(n_stations):
                updated = throughput[c] * residence[c, k]
                change = max(change, abs(updated - queue[c, k]))
                queue[c, k] += weight * (updated - queue[c, k])
        if change <= limit:
            return iteration + 1, change
    return -1, change


FIXED_POINT = Kernel(_fixed_point)  # compiled when first called: numba loads only then (qmodel.kernels)
