"""Hypothesis strategies for random queueing networks, and an exact convolution reference."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from hypothesis import strategies as st

from qmodel.networks.model import Network, Station, network

DEMANDS = st.floats(min_value=0.01, max_value=10.0, allow_nan=False).map(lambda d: round(d, 3))


@st.composite
def single_class_networks(draw, load_dependent: bool = True, max_population: int = 25) -> Network:
    """Single-class networks of 1–5 stations: queues, delays and (optionally) multi-servers."""
    stations = draw(st.integers(1, 5))
    kinds = st.sampled_from(["queue", "queue", "delay", "multi"] if load_dependent else ["queue", "delay"])
    servers = []
    for _ in range(stations):
        kind = draw(kinds)
        servers.append(1 if kind == "queue" else "delay" if kind == "delay" else draw(st.integers(2, 6)))
    if all(s == "delay" for s in servers):
        servers[0] = 1
    demands = draw(st.lists(DEMANDS, min_size=stations, max_size=stations))
    think = draw(st.sampled_from([0.0, 0.5, 2.0, 10.0]))
    population = draw(st.integers(1, max_population))
    return network(demands, servers=servers, think_time=think, population=population)


RATE_TABLES = st.lists(st.floats(0.5, 4.0).map(lambda r: round(r, 2)), min_size=1, max_size=4)


@st.composite
def multi_class_networks(
    draw, max_classes: int = 3, max_population: int = 6, load_dependent: bool = False
) -> Network:
    """Multi-class networks of queues and delays (and multi-server, ld), small enough for exact MVA."""
    classes = draw(st.integers(1, max_classes))
    stations = draw(st.integers(1, 4))
    demands = [draw(st.lists(DEMANDS, min_size=stations, max_size=stations)) for _ in range(classes)]
    kinds = [1, 1, "delay", 2, 3, 8, "ld"] if load_dependent else [1, 1, "delay"]
    servers = [draw(st.sampled_from(kinds)) for _ in range(stations)]
    if all(s == "delay" for s in servers):
        servers[0] = 1
    rates = [draw(RATE_TABLES) if s == "ld" else None for s in servers]
    servers = [1 if s == "ld" else s for s in servers]
    populations = draw(st.lists(st.integers(0, max_population), min_size=classes, max_size=classes))
    if sum(populations) == 0:  # a network without jobs is refused (tests/networks/test_solve.py)
        populations[0] = 1
    think = draw(st.lists(st.sampled_from([0.0, 1.0, 5.0]), min_size=classes, max_size=classes))
    return network(
        demands,
        servers=servers,
        rates=rates if load_dependent else None,
        think_time=think,
        population=populations,
    )


def convolution_multi_class(net: Network) -> list[float]:
    """X_c = G(N − e_c) / G(N) by convolution over the population lattice in exact rational arithmetic.

    Station factor (BCMP product form): F_k(n) = |n|! / Π_c n_c! · Π_c D_ck^{n_c} / Π_{i≤|n|} α_k(i),
    with α(i) = i at a delay station; the think time is a delay station.
    """
    populations = [int(p) for p in net.populations]
    points = list(itertools.product(*[range(p + 1) for p in populations]))

    def factor(demands: list[Fraction], rates: list[Fraction] | None, n: tuple[int, ...]) -> Fraction:
        total = sum(n)
        value = Fraction(math.factorial(total))
        for d, count in zip(demands, n, strict=True):
            value = value * d**count / math.factorial(count)
        for i in range(1, total + 1):
            value /= i if rates is None else rates[min(i, len(rates)) - 1]
        return value

    columns = [([Fraction(float(d)) for d in net.think_times], None)]
    for k, station in enumerate(net.stations):
        rates = None if station.infinite else [Fraction(float(r)) for r in station.rate_table]
        columns.append(([Fraction(float(d)) for d in net.demands[:, k]], rates))

    def below(p: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Every split of p into q (at the station) and p − q (elsewhere)."""
        return [
            (q, tuple(a - b for a, b in zip(p, q, strict=True)))
            for q in itertools.product(*[range(a + 1) for a in p])
        ]

    constants = {p: Fraction(int(sum(p) == 0)) for p in points}
    for demands, rates in columns:
        constants = {
            p: sum(factor(demands, rates, q) * constants[rest] for q, rest in below(p)) for p in points
        }
    top = tuple(populations)
    less = [tuple(n - (c == i) for i, n in enumerate(top)) for c in range(len(top))]
    return [float(constants[less[c]] / constants[top]) if top[c] else 0.0 for c in range(len(top))]


def convolution_throughput(model: Network, population: int) -> list[float]:
    """X(1..N) = G(n − 1)/G(n) by Buzen's convolution in exact rational arithmetic (single class)."""
    demand = [Fraction(float(d)) for d in model.demands[0]]
    think = Fraction(float(model.think_times[0]))
    factorial = Fraction(1)
    think_terms = [Fraction(1)]
    for j in range(1, population + 1):
        factorial *= j
        think_terms.append(think**j / factorial)
    constants = think_terms[:]
    for d, station in zip(demand, model.stations, strict=True):
        terms = _station_terms(d, station, population)
        constants = [sum(terms[j] * constants[n - j] for j in range(n + 1)) for n in range(population + 1)]
    return [float(constants[n - 1] / constants[n]) for n in range(1, population + 1)]


def _station_terms(demand: Fraction, station: Station, population: int) -> list[Fraction]:
    """F(j) = D^j / Π_{i≤j} α(i): the station's factor in the product form."""
    rates = station.rate_multipliers(population)
    terms = [Fraction(1)]
    for j in range(1, population + 1):
        rate = Fraction(j) if station.kind == "delay" else Fraction(float(rates[j - 1]))
        terms.append(terms[-1] * demand / rate)
    return terms


def ld_equivalent(model: Network) -> Network:
    """The same network with every multi-server station given as an ld station with rates min(j, c)."""
    stations = tuple(
        Station(s.name, "ld", 1, tuple(float(j) for j in range(1, s.servers + 1))) if s.kind == "multi" else s
        for s in model.stations
    )
    return Network(
        stations,
        model.classes,
        model.demands,
        model.think_times,
        model.populations,
        model.arrival_rates,
        model.visits,
        model.time_unit,
    )
