"""The exact methods' time estimates against measured runs where the limit decides (figures; not a test).

Every exact MVA request is refused before it starts when its estimated CPU passes the limit
(qmodel.limits, 10 s). For each way the recursion runs (one class or a lattice; queues only or with
multi-server stations) this script picks the size whose estimate is ``--fraction`` of the limit, runs
it compiled, and prints the CPU it took (process time, warm: compiled code loaded), the estimate and
their ratio. Also the interpreted kernel's rate (qmodel.kernels.INTERPRETED_RATE) and the issue-37
case of 17 two-server stations and 3 queues at N = 1,000 (answered or refused, its estimate within
2x of the time it takes). tests/networks/test_estimates.py holds the ratio within 2x at smaller sizes.

The figures are written to bench/figures/limits_calibration.json (the docs quote them).

Usage: python bench/limits_calibration.py [--fraction 0.8]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from timing import record

from qmodel import kernels, limits
from qmodel.networks import exact
from qmodel.networks.model import Network, network


def single(stations: int, servers: list[int]) -> Network:
    demands = np.random.default_rng(2026).uniform(0.1, 1.0, stations)
    return network(demands, servers=servers + [1] * (stations - len(servers)), think_time=10.0, population=1)


def classes(count: int, stations: int, servers: list[int]) -> Network:
    demands = np.random.default_rng(2026).uniform(0.1, 1.0, (count, stations))
    return network(demands, servers=servers + [1] * (stations - len(servers)), population=[1] * count)


def cpu(call) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def sweep_at(net: Network, seconds: float) -> tuple[int, float, float]:
    """(N, estimated, measured CPU) for the sweep whose estimate is ``seconds``."""
    population = int(seconds / exact.point_seconds(net.within(10**9), 1))
    model = net.within(population)
    estimate = exact.estimate_sweep(model, population)[1]
    exact.sweep(model, 100)
    return population, estimate, cpu(lambda: exact.sweep(model, population))


def lattice_at(net: Network, seconds: float) -> tuple[int, float, float]:
    """(N per class, estimated, measured CPU) for the lattice whose estimate is nearest ``seconds``."""
    count = len(net.classes)
    per_point = exact.point_seconds(net, count)
    population = round((seconds / per_point) ** (1 / count)) - 1
    counts = np.full(count, float(population))
    model = net.within(int(counts.sum()))
    estimate = exact.estimate_lattice(model, counts)[1]
    exact.lattice(model, np.ones(count))
    return population, estimate, cpu(lambda: exact.lattice(model, counts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction", type=float, default=0.8, help="of the time limit (default 0.8)")
    seconds = parser.parse_args().fraction * limits.TIME_LIMIT
    kernels.COMPILE_FROM = 0.0  # compiled throughout, as at the limit
    print(
        f"estimates at {seconds:.1f} s of CPU (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores)"
    )
    cases = [
        ("sweep, 1,000 queues", sweep_at, single(1000, [])),
        ("sweep, 20 stations, 14 two-server", sweep_at, single(20, [2] * 14)),
        ("sweep, 100 stations, 30 four-server", sweep_at, single(100, [4] * 30)),
        ("lattice, 3 classes, 100 queues", lattice_at, classes(3, 100, [])),
        ("lattice, 3 classes, 10 stations, 4 two-server", lattice_at, classes(3, 10, [2] * 4)),
        ("lattice, 2 classes, 10 stations, 2 eight-server", lattice_at, classes(2, 10, [8] * 2)),
    ]
    figures: dict[str, dict] = {}
    for name, run, net in cases:
        population, estimate, measured = run(net, seconds)
        figures[name] = {"population": population, "estimate_s": estimate, "measured_s": measured}
        print(
            f"{name:50s} N = {population:>11,}: estimated {estimate:6.2f} s, measured {measured:6.2f} s, "
            f"ratio {estimate / measured:4.2f}"
        )
    net = single(20, [2] * 17).within(1000)
    estimate = exact.estimate_sweep(net, 1000)[1]
    exact.sweep(net, 10)
    measured = min(cpu(lambda: exact.sweep(net, 1000)) for _ in range(5))
    print(
        f"17 two-server stations and 3 queues, N = 1,000: estimated {estimate * 1e3:.2f} ms, measured "
        f"{measured * 1e3:.2f} ms, ratio {estimate / measured:.2f} (answered: the limit is "
        f"{limits.TIME_LIMIT:g} s)"
    )
    figures["17 two-server stations and 3 queues, N = 1,000"] = {
        "population": 1000,
        "estimate_s": estimate,
        "measured_s": measured,
    }
    model = single(20, [2] * 14).within(2000)
    operations = 2000 * sum(exact.point_work(model))
    interpreted = cpu(lambda: exact.LATTICE_KERNEL.function(*_sweep_arguments(model, 2000)))
    print(
        f"interpreted kernel: {operations / interpreted:.3g} operations per second (INTERPRETED_RATE "
        f"{kernels.INTERPRETED_RATE:.3g}); compiling costs about {kernels.COMPILE_START} s of start-up"
    )
    record(
        "limits_calibration",
        {
            "limit_fraction": seconds / limits.TIME_LIMIT,
            "cases": figures,
            "interpreted_rate": operations / interpreted,
        },
    )


def _sweep_arguments(net: Network, population: int) -> tuple:
    """The kernel's arguments for a sweep to ``population`` (as exact.sweep passes them)."""
    static, ring = exact.recursion(net, 2)
    stations = len(net.stations)
    return (
        static,
        ring,
        np.ones(1, dtype=np.int64),
        1,
        population + 1,
        np.zeros(1),
        np.zeros((1, stations)),
        np.zeros(population + 1),
        np.zeros(0, dtype=np.int64),
        0,
        *[np.zeros((0, stations))] * 3,
    )


if __name__ == "__main__":
    main()
