"""Exact Mean Value Analysis of closed product-form networks, any number of classes, every station type.

Each finite station k has a rate table α_k(1..L_k) whose last entry holds
for more jobs (qmodel.networks.stations; L = 1 for a queue, c for c servers).
With n the population vector, e_c one job of class c, and p_k(j | n) the
marginal probability of j jobs at station k (Reiser & Lavenberg 1980;
Bolch et al. 2006, §8.2.4 for the multi-server form):

    R_ck(n) = D_ck Σ_{j≥1} j / α_k(j) · p_k(j − 1 | n − e_c)
            = D_ck [ (1 + Q_k(n − e_c)) / α_k(L)
                     + Σ_{j=1..L−1} j (1/α_k(j) − 1/α_k(L)) p_k(j − 1 | n − e_c) ]
    R_ck(n) = D_ck                                        delay station
    X_c(n)  = n_c / (Z_c + Σ_k R_ck(n)),   Q_k(n) = Σ_c X_c(n) R_ck(n)
    p_k(j | n) = Σ_c D_ck X_c(n) p_k(j − 1 | n − e_c) / α_k(j)       1 ≤ j ≤ L − 2

The second form of R (the tail where α is constant summed through Q) needs
p_k(0..L−2) only: O(L) work per station and population, not O(N).

The usual p_k(0 | n) = 1 − Σ_{j≥1} p_k(j | n) cancels catastrophically once
the station saturates (Octave's qncsmva gives negative throughput at N = 80
on an 8-server station). Here it comes from the complementary network
(station k removed) as a sum of positive terms, with no subtraction:

    p_k(0 | n) = G^{−k}(n) / G(n)

where G_S is the normalising constant of the network of stations S (Buzen's
convolution; Reiser & Kobayashi 1975 for classes and load-dependent rates).
Each such ratio g_S(n) = G_S(n) / G(n) is built one station at a time, every
quantity scaled by the whole network's G(n) so that it lies in [0, 1] (G_S ≤
G) and nothing overflows. The scaling reads the network's own X_c(n) =
G(n − e_c) / G(n) from the MVA step at n. Adding station k to S, with t_j(n) the share of
g_{S+k}(n) in which k holds j jobs:

    t_0(n) = g_S(n)
    t_j(n) = Σ_c D_ck X_c(n) / α_k(j) · t_{j−1}(n − e_c)              1 ≤ j ≤ L − 2
    tail(n) = Σ_c D_ck X_c(n) (t_{L−2}(n − e_c) / α_k(L−1) + tail(n − e_c) / α_k(L))
    g_{S+k}(n) = Σ_j t_j(n) + tail(n)

(for S the complement of k these are the marginals above), and the base S₀
of the delays (think time included) and single-rate queues:

    g_delay(n) = Z'_c X_c(n) / n_c · g_delay(n − e_c)      Z'_c = Z_c + Σ_delay D_ck, any c with n_c > 0
    g_{S+q}(n) = g_S(n) + Σ_c D_cq X_c(n) / α_q · g_{S+q}(n − e_c)

The complements of the M load-dependent stations share their parts: the
stations are halved, each half's complements built on the other half added
once (complement_plan), about M·log₂M additions of L − 1 terms each, not the
2^M subnetworks of a complement-by-complement recursion. Every quantity at n
reads n − e_c only: one class keeps one population, several classes a ring
of Π_{c≥2} (N_c + 1) points (the class with the most jobs first).
Work per class and population (point_work): K stations, Σ(L_k − 1) marginal terms, and
with load-dependent stations K + Σ_nodes L complement terms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from qmodel.kernels import Kernel
from qmodel.limits import refuse_too_large
from qmodel.networks.model import Network

Progress = Callable[[int, int], None]

# CPU of the compiled recursion, this machine (bench/limits_calibration.py measures them at the sizes
# where the limit decides): stations per second (R, X, Q: 7.6e8 measured), marginal and complement
# terms per second (1.3e8 to 2e8 measured; the top taken: at 1.5e8 an 8-server lattice was estimated
# 2.2x its CPU, at 2e8 every case of tests/networks/test_estimates.py lies within 0.67-1.68x), per
# population or lattice point whatever the network (the odometer,
# the curve; with the page faults of a sweep's arrays, about 70 ns: see BYTES_PER_POPULATION), and per
# call (the tables and the complements' plan: 1.3 ms at 17 two-server stations)
STATION_RATE = 7.6e8
MARGINAL_RATE = 2e8
SECONDS_PER_POINT = 7e-8
SECONDS_PER_CALL = 1e-3
CHUNK = 4096  # populations per compiled call between progress reports


@dataclass(frozen=True)
class Tables:
    """The stations as the recursion sees them: rate tables flattened, one column per p_k(j) kept."""

    infinite: np.ndarray  # (K,) bool
    inverse_last: np.ndarray  # (K,) 1/α_k(L) (0 at a delay station)
    ld: np.ndarray  # (M,) indices of the stations with L ≥ 2
    offsets: np.ndarray  # (M + 1,) where each one's p_k(0..L−2) start in the flat state
    coefficient: np.ndarray  # (T,) j (1/α(j) − 1/α(L)) for j = 1..L−1, multiplying p(j − 1)
    inverse_rate: np.ndarray  # (T,) 1/α(j) for j = 1..L−1


def tables(net: Network) -> Tables:
    """The recursion's view of the network's stations (see the module docstring)."""
    infinite = net.infinite
    inverse_last = np.array([0.0 if s.infinite else 1.0 / s.rate_table[-1] for s in net.stations])
    ld = [k for k, s in enumerate(net.stations) if not s.infinite and len(s.rate_table) >= 2]
    coefficient, inverse_rate, offsets = [np.zeros(0)], [np.zeros(0)], [0]
    for k in ld:
        rates = np.asarray(net.stations[k].rate_table, float)
        j = np.arange(1, rates.size)
        coefficient.append(j * (1 / rates[:-1] - 1 / rates[-1]))
        inverse_rate.append(1 / rates[:-1])
        offsets.append(offsets[-1] + rates.size - 1)
    return Tables(
        infinite,
        inverse_last,
        np.array(ld, dtype=np.int64),
        np.array(offsets, dtype=np.int64),
        np.concatenate(coefficient),
        np.concatenate(inverse_rate),
    )


def complement_plan(stations: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How the complements of ``stations`` load-dependent stations are built, one station added at a time.

    Returns (parent, added, leaf): node i is node parent[i] (−1: the base, every other station) with
    load-dependent station added[i]; leaf[m] is the node without station m alone (−1 when m is the only
    one). The stations are halved: each half's complements share the other half, added once, so there
    are about M·log₂M nodes, parents before children.
    """
    parent: list[int] = []
    added: list[int] = []
    leaf = [-1] * stations

    def build(group: list[int], base: int) -> None:
        if len(group) == 1:
            leaf[group[0]] = base
            return
        half = len(group) // 2
        for part, rest in ((group[:half], group[half:]), (group[half:], group[:half])):
            node = base
            for m in rest:
                parent.append(node)
                added.append(m)
                node = len(parent) - 1
            build(part, node)

    if stations:
        build(list(range(stations)), -1)
    return (np.array(parent, dtype=np.int64), np.array(added, dtype=np.int64), np.array(leaf, dtype=np.int64))


@dataclass(frozen=True)
class Sweep:
    """Single-class exact MVA for n = 1..N: X and R for every n, the stations' figures at ``at``."""

    throughput: np.ndarray  # (N,) jobs per second
    response_time: np.ndarray  # (N,) seconds, think time excluded
    at: np.ndarray  # (A,) populations with station figures
    queue_length: np.ndarray  # (A, K)
    residence_time: np.ndarray  # (A, K)
    empty: np.ndarray  # (A, K) p_k(0 | n): 1 − busy (0 at delay and constant-rate stations)


# Per population of a sweep, whatever the network: its arrays (a planner's trial, 3 stations to
# N = 120,000,000: 2.98 GB at its peak, about 25 bytes a population, and 8.8 s of CPU, 5.7 s of it the
# system's page faults)
BYTES_PER_POPULATION = 32.0


def point_work(net: Network) -> tuple[int, int]:
    """Per class and population: (stations, marginal and complement terms) the recursion works on
    (the module docstring's cost)."""
    table = tables(net)
    terms = table.coefficient.size
    if table.ld.size:
        _, added, _ = complement_plan(table.ld.size)
        terms += len(net.stations) + int((np.diff(table.offsets)[added] + 1).sum())
    return len(net.stations), terms


def point_seconds(net: Network, classes: int) -> float:
    """Estimated CPU seconds of the compiled recursion per population (lattice point) of ``classes``
    classes with jobs: SECONDS_PER_POINT, and each class's stations and terms (point_work) at
    STATION_RATE and MARGINAL_RATE."""
    stations, terms = point_work(net)
    return SECONDS_PER_POINT + classes * (stations / STATION_RATE + terms / MARGINAL_RATE)


def ring_bytes(net: Network, points: float) -> float:
    """Bytes of the recursion's state kept for ``points`` points (the ring)."""
    stations, terms = point_work(net)
    return 8.0 * points * (stations + terms + 2)


def estimate_sweep(net: Network, population: int) -> tuple[float, float]:
    """(bytes, seconds) a single-class sweep to ``population`` would take: the arrays of every
    population (BYTES_PER_POPULATION), the set-up (SECONDS_PER_CALL) and the recursion at each
    population (point_seconds)."""
    return (
        BYTES_PER_POPULATION * population + ring_bytes(net, 2),
        SECONDS_PER_CALL + population * point_seconds(net, 1),
    )


def sweep(net: Network, population: int, at: Sequence[int] = (), progress: Progress | None = None) -> Sweep:
    """Exact single-class MVA for every population 1..N, per-station figures at ``at`` only.

    Memory: two arrays of N, plus the stations at the populations asked for.
    Units: seconds and jobs per second. Source: module docstring.
    """
    refuse_too_large(
        *estimate_sweep(net, population),
        f"a sweep to N = {population:,}",
        "a smaller N (--at does not shorten the sweep itself)",
    )
    static, ring = recursion(net, 2)
    at_array = np.array(sorted({int(n) for n in at}), dtype=np.int64)  # (np.unique loads numpy.ma)
    stations = len(net.stations)
    throughput = np.zeros(population + 1)
    x, residence = np.zeros(1), np.zeros((1, stations))
    queue_at = np.zeros((at_array.size, stations))
    residence_at = np.zeros((at_array.size, stations))
    empty_at = np.zeros((at_array.size, stations))
    work = float(population) * sum(point_work(net))
    for start in range(1, population + 1, CHUNK):
        stop = min(start + CHUNK, population + 1)
        LATTICE_KERNEL(
            work,
            static,
            ring,
            np.ones(1, dtype=np.int64),
            start,
            stop,
            x,
            residence,
            throughput,
            at_array,
            int(np.searchsorted(at_array, start)),
            queue_at,
            residence_at,
            empty_at,
        )
        if progress is not None:
            progress(stop - 1, population)
    throughput = throughput[1:]
    response = np.arange(1, population + 1) / throughput - net.think_times[0]
    return Sweep(throughput, response, at_array, queue_at, residence_at, empty_at)


def recursion(net: Network, ring: int) -> tuple[tuple, tuple]:
    """The kernels' view of the network (static arrays) and their state at n = 0 in a ring of ``ring``
    points (one class: 2; several: lattice's), as tuples the kernels unpack."""
    table = tables(net)
    parent, added, leaf = complement_plan(table.ld.size)
    stations = len(net.stations)
    sizes = np.diff(table.offsets)[added]  # each node's t_0..t_{L−2} (and its tail)
    node_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    ld = set(table.ld.tolist())
    single = np.array([k for k in range(stations) if not table.infinite[k] and k not in ld], dtype=np.int64)
    demand = np.ascontiguousarray(net.demands, float)
    think = np.ascontiguousarray(net.think_times, float)
    scaled = demand * table.inverse_last  # D / α(L): 0 at a delay station
    delay = think + demand[:, table.infinite].sum(axis=1)  # Z'_c: think time and delay stations
    static = (
        demand,
        scaled,
        scaled + demand * table.infinite,
        table.inverse_last,
        table.ld,
        table.offsets,
        table.coefficient,
        table.inverse_rate,
        think,
        single,
        delay,
        parent,
        added,
        leaf,
        node_offsets,
    )
    state = np.zeros((ring, table.coefficient.size))
    state[0, table.offsets[:-1]] = 1.0  # p(0 | 0) = 1
    terms = np.zeros((ring, int(node_offsets[-1])))
    terms[0, node_offsets[:-1]] = 1.0  # g_S(0) = G_S(0) / G(0) = 1
    base = np.ones((ring, single.size + 1 if table.ld.size else 1))  # the base: with ld stations only
    return static, (
        np.zeros((ring, stations)),
        state,
        base,
        terms,
        np.zeros((ring, added.size)),
        np.ones((ring, added.size)),
    )


@dataclass(frozen=True)
class Point:
    """Exact MVA at one population vector: per class X (C,), per class and station R (C, K), p_k(0)."""

    throughput: np.ndarray
    residence_time: np.ndarray
    empty: np.ndarray  # (K,) p_k(0 | N) at the load-dependent stations, 0 elsewhere
    marginals: dict[int, np.ndarray]  # station → p_k(0..L−2 | N) at the load-dependent stations


def estimate_lattice(net: Network, populations: np.ndarray) -> tuple[float, float]:
    """(bytes, seconds) exact multi-class MVA at ``populations`` would take: the ring of points the
    recursion reads back (ring_bytes), and every point of the lattice (point_seconds)."""
    counts = np.sort(populations.astype(float))[::-1]
    ring = float(np.prod(counts[1:] + 1)) + 1
    return ring_bytes(net, ring), SECONDS_PER_CALL + float(np.prod(counts + 1)) * point_seconds(
        net, int((counts > 0).sum())
    )


def lattice(net: Network, populations: np.ndarray, progress: Progress | None = None) -> Point:
    """Exact multi-class MVA at ``populations`` (C,), the lattice in index order (module docstring).

    A point n reads n − e_c only, at most Π_{c≥2} (N_c + 1) points back (the class with the most jobs
    first): only those are kept, in a ring. Returns X, R, p(0) and the marginals at ``populations``.
    """
    refuse_too_large(
        *estimate_lattice(net, populations),
        f"exact MVA at populations {populations.astype(int)}",
        "--method linearizer or schweitzer (approximate), or smaller populations",
    )
    table = tables(net)
    order = np.argsort(-populations, kind="stable")  # the most jobs first: the least ring
    counts = populations[order].astype(np.int64)
    n_classes, stations = net.demands.shape
    strides = np.array([int(np.prod(counts[c + 1 :] + 1)) for c in range(n_classes)], dtype=np.int64)
    points = int(strides[0] * (counts[0] + 1))
    ring = int(strides[0]) + 1
    static, state = recursion(
        replace(net, demands=net.demands[order], think_times=net.think_times[order]), ring
    )
    throughput = np.zeros(n_classes)
    residence = np.zeros((n_classes, stations))
    work = float(points) * n_classes * sum(point_work(net))
    chunk = max(1, CHUNK * 64 // max(1, n_classes * sum(point_work(net))))
    for start in range(1, points, chunk):
        stop = min(start + chunk, points)
        LATTICE_KERNEL(
            work,
            static,
            state,
            strides,
            start,
            stop,
            throughput,
            residence,
            np.zeros(0),
            np.zeros(0, dtype=np.int64),
            0,
            *[np.zeros((0, stations))] * 3,
        )
        if progress is not None:
            progress(stop - 1, points - 1)
    last = (points - 1) % ring
    back = np.argsort(order)
    empty = np.zeros(stations)
    probabilities = state[1][last]
    empty[table.ld] = probabilities[table.offsets[:-1]]
    marginals = {
        int(k): probabilities[table.offsets[m] : table.offsets[m + 1]].copy() for m, k in enumerate(table.ld)
    }
    return Point(throughput[back], residence[back], empty, marginals)


def _lattice_kernel(
    static,
    ring,
    strides,
    start,
    stop,
    throughput,
    residence,
    curve,
    at,
    next_at,
    queue_at,
    residence_at,
    empty_at,
):
    """Points start..stop−1 of the lattice in index order, the recursion of the module docstring: point f
    lives at f mod ring and reads f − stride_c; X and R per class are left at the last point computed.

    One class (``curve`` of N + 1): X at each n into ``curve``, and the stations at the populations
    ``at`` (sorted, unique; ``next_at`` the first of them ≥ start: one comparison per n).
    """
    (
        demand,
        scaled,
        plain,
        inverse_last,
        ld,
        offsets,
        coefficient,
        inverse_rate,
        think,
        single,
        delay,
        parent,
        added,
        leaf,
        node_offsets,
    ) = static
    queue, state, base, terms, tails, values = ring
    n_classes, stations = demand.shape
    size = queue.shape[0]
    jobs = np.zeros(n_classes, dtype=np.int64)
    rest = start
    for c in range(n_classes):
        jobs[c] = rest // strides[c]
        rest -= jobs[c] * strides[c]
    jobs[n_classes - 1] -= 1  # the odometer below counts it back
    before = np.zeros(n_classes, dtype=np.int64)
    here = (start - 1) % size
    for flat in range(start, stop):
        c = n_classes - 1
        jobs[c] += 1
        while c > 0 and jobs[c] > strides[c - 1] // strides[c] - 1:
            jobs[c] = 0
            c -= 1
            jobs[c] += 1
        here = here + 1 if here + 1 < size else 0
        for c in range(n_classes):
            before[c] = here - strides[c] if here >= strides[c] else here - strides[c] + size
        chosen = 0
        for c in range(n_classes):
            throughput[c] = 0.0
            if jobs[c] == 0:
                for k in range(stations):
                    residence[c, k] = 0.0
                continue
            chosen = c
            b = before[c]
            cycle = think[c]
            for k in range(stations):  # D (1 + Q) / α(L) at a queue, D at a delay
                r = scaled[c, k] * queue[b, k] + plain[c, k]
                residence[c, k] = r
                cycle += r
            for m in range(ld.size):
                k = ld[m]
                extra = 0.0
                for i in range(offsets[m], offsets[m + 1]):
                    extra += coefficient[i] * state[b, i]
                residence[c, k] += demand[c, k] * extra
                cycle += demand[c, k] * extra
            throughput[c] = jobs[c] / cycle
        for k in range(stations):
            queue[here, k] = throughput[0] * residence[0, k]
        for c in range(1, n_classes):
            for k in range(stations):
                queue[here, k] += throughput[c] * residence[c, k]
        for m in range(ld.size):  # p(j | n) = Σ_c D_ck X_c / α(j) · p(j − 1 | n − e_c)
            k = ld[m]
            for i in range(offsets[m + 1] - 1, offsets[m], -1):
                total = 0.0
                for c in range(n_classes):
                    if jobs[c] > 0:
                        total += demand[c, k] * throughput[c] * state[before[c], i - 1]
                state[here, i] = inverse_rate[i - 1] * total
        if ld.size > 0:
            b = before[chosen]  # the complements g_S(n) = G_S(n) / G(n)
            base[here, 0] = base[b, 0] * delay[chosen] * throughput[chosen] / jobs[chosen]
            for q in range(single.size):
                total = 0.0
                for c in range(n_classes):
                    if jobs[c] > 0:
                        total += demand[c, single[q]] * throughput[c] * base[before[c], q + 1]
                base[here, q + 1] = base[here, q] + inverse_last[single[q]] * total
            for i in range(added.size):
                m = added[i]
                k = ld[m]
                first, last = node_offsets[i], node_offsets[i + 1] - 1
                tail = 0.0
                for c in range(n_classes):
                    if jobs[c] > 0:
                        b = before[c]
                        tail += (
                            demand[c, k]
                            * throughput[c]
                            * (
                                inverse_rate[offsets[m + 1] - 1] * terms[b, last]
                                + inverse_last[k] * tails[b, i]
                            )
                        )
                tails[here, i] = tail
                value = tail
                for j in range(last, first, -1):
                    total = 0.0
                    for c in range(n_classes):
                        if jobs[c] > 0:
                            total += demand[c, k] * throughput[c] * terms[before[c], j - 1]
                    terms[here, j] = inverse_rate[offsets[m] + j - first - 1] * total
                    value += terms[here, j]
                terms[here, first] = base[here, single.size] if parent[i] < 0 else values[here, parent[i]]
                values[here, i] = value + terms[here, first]
            for m in range(ld.size):
                state[here, offsets[m]] = base[here, single.size] if leaf[m] < 0 else values[here, leaf[m]]
        if curve.size:
            curve[flat] = throughput[0]
            if next_at < at.size and at[next_at] == flat:
                for k in range(stations):
                    queue_at[next_at, k] = queue[here, k]
                    residence_at[next_at, k] = residence[0, k]
                for m in range(ld.size):
                    empty_at[next_at, ld[m]] = state[here, offsets[m]]
                next_at += 1


LATTICE_KERNEL = Kernel(_lattice_kernel)
