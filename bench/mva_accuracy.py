"""Approximate MVA against exact on generated networks: throughput error distributions (prints figures).

Networks are drawn at random (fixed seed) in three families, each with 2–3 closed classes,
3–6 stations, think times and populations of 1–30 per class:

- queues: single-server queues and delays only;
- multi-server: one or two stations with 2, 4, 8 or 16 servers beside queues and delays;
- ld: a general load-dependent station (rising rate table) beside the above.

For every method, the relative error of each class's throughput against exact MVA: median, 90th
percentile and maximum over all classes of all networks, and the time per solve.

Usage: python bench/mva_accuracy.py [--networks 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from qmodel.networks import network, solve
from qmodel.networks.solver import METHODS

RNG = np.random.default_rng(11)
FAMILIES = ("queues", "multi-server", "ld")


def generated(family: str):
    """One random network of the family (see the module docstring)."""
    classes = int(RNG.integers(2, 4))
    stations = int(RNG.integers(3, 7))
    demands = RNG.uniform(0.05, 1.0, (classes, stations)) * (RNG.random((classes, stations)) < 0.85)
    demands[:, 0] = RNG.uniform(0.05, 1.0, classes)  # every class visits station 1
    servers: list[object] = [1] * stations
    rates: list[object] = [None] * stations
    servers[-1] = "delay" if RNG.random() < 0.5 else 1
    if family != "queues":
        for k in RNG.choice(stations - 1, size=int(RNG.integers(1, 3)), replace=False):
            servers[k] = int(RNG.choice([2, 4, 8, 16]))
            demands[:, k] *= servers[k]  # keep it a plausible bottleneck
    if family == "ld":
        k = int(RNG.integers(0, stations - 1))
        servers[k] = 1
        rates[k] = list(np.round(np.cumsum(RNG.uniform(0.2, 1.0, int(RNG.integers(2, 6)))) + 0.5, 2))
    populations = RNG.integers(1, 31, classes)
    think = RNG.choice([0.0, 1.0, 5.0, 20.0], classes)
    return network(demands, servers=servers, rates=rates, population=populations, think_time=think)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", type=int, default=200, help="networks per family")
    count = parser.parse_args().networks
    approximations = [m for m in METHODS if m != "exact"]
    print(f"{count} networks per family; |X − X_exact| / X_exact per class, in %")
    print(f"{'family':<13} {'method':<11} {'median':>8} {'90th pct':>9} {'max':>8} {'time/solve':>11}")
    for family in FAMILIES:
        errors: dict[str, list[float]] = {m: [] for m in approximations}
        seconds: dict[str, float] = {m: 0.0 for m in approximations}
        solved = 0
        for _ in range(count):
            net = generated(family)
            exact = solve(net).throughput
            solved += 1
            for method in approximations:
                if family == "ld" and method == "seidmann":
                    continue
                start = time.perf_counter()
                approximate = solve(net, method).throughput
                seconds[method] += time.perf_counter() - start
                errors[method].extend(np.abs(approximate / exact - 1) * 100)
        for method in approximations:
            if not errors[method]:
                print(f"{family:<13} {method:<11} {'(ld stations: not supported)':>40}")
                continue
            values = np.array(errors[method])
            print(
                f"{family:<13} {method:<11} {np.median(values):8.3f} {np.percentile(values, 90):9.3f} "
                f"{values.max():8.3f} {seconds[method] / solved * 1e3:9.2f} ms"
            )


if __name__ == "__main__":
    main()
