"""Engine breadth (issue 35): the time of each new capability on its target workload (figures; not a test).

Target: routing-matrix visits and priority MVA on 100 stations × 5 classes under 0.1 s.

- routing: the traffic equations of 5 classes × 100 stations, every class switching into every
  other (one chain of 500 states: the densest case), a 10% dense random routing; and the same
  without switching (five chains of 100 states);
- priority MVA: 5 closed classes of 20 jobs, 5 priority levels, over 100 stations (every fifth
  preemptive, every fifth non-preemptive, every fifth FCFS with service times by class, a fifth of
  them with 4 servers), and the same with the classes open at 70% of the busiest station's capacity;

Medians over the rounds, each case interleaved with the others in every round (the machine is
shared: absolute times move with the load, ratios less). The figures are written to
bench/figures/engine_breadth.json (docs/background/benchmarks.md quotes them).

Usage: python bench/engine_breadth.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from timing import record

from qmodel.networks import network, solve

CLASSES, STATIONS = 5, 100


def _routing(switching: bool, rng: np.random.Generator) -> np.ndarray:
    """A random routing, 10% of the entries nonzero, rows summing to one (closed classes)."""
    shape = (CLASSES, STATIONS, CLASSES, STATIONS)
    matrix = rng.uniform(size=shape) * (rng.uniform(size=shape) < 0.1)
    if not switching:
        matrix *= np.eye(CLASSES)[:, None, :, None]
    for r in range(CLASSES):  # a cycle through every station, every class
        matrix[r, np.arange(STATIONS), r, (np.arange(STATIONS) + 1) % STATIONS] += 0.01
    return matrix / matrix.sum(axis=(2, 3), keepdims=True)


def cases() -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(35)
    service = rng.uniform(0.001, 0.01, (CLASSES, STATIONS))
    switching, separate = _routing(True, rng), _routing(False, rng)
    scheduling = [("priority", "priority-np", "fcfs", "", "")[k % 5] for k in range(STATIONS)]
    servers = [4 if k % 5 == 1 else 1 for k in range(STATIONS)]
    closed = network(
        service,
        servers=servers,
        scheduling=scheduling,
        priority=list(range(CLASSES)),
        population=[20] * CLASSES,
        think_time=[1.0] * CLASSES,
    )
    busiest = (service / np.array(servers)).sum(axis=0).max()
    opened = network(
        service,
        servers=servers,
        scheduling=scheduling,
        priority=list(range(CLASSES)),
        arrival_rate=[0.7 / busiest] * CLASSES,
    )
    return {
        "routing visits, one chain of 5 classes": lambda: network(
            service, routing=switching, population=[2] * CLASSES
        ),
        "routing visits, 5 chains": lambda: network(service, routing=separate, population=[2] * CLASSES),
        "priority MVA, closed": lambda: solve(closed),
        "priority MVA, open": lambda: solve(opened),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    work = cases()
    for call in work.values():  # imports, numba's compiled code
        call()
    times: dict[str, list[float]] = {name: [] for name in work}
    for _ in range(rounds):
        for name, call in work.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    print(f"{CLASSES} classes × {STATIONS} stations, median of {rounds} interleaved rounds (target 0.1 s)")
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    for name, median in medians.items():
        print(f"  {name:<45} {median * 1e3:8.1f} ms  {'ok' if median < 0.1 else 'OVER'}")
    record("engine_breadth", {"classes": CLASSES, "stations": STATIONS, "rounds": rounds, "seconds": medians})


if __name__ == "__main__":
    main()
