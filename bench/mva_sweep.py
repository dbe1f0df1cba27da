"""Large MVA requests in bounded memory and time: sweeps, bounds, lattices (figures; not a test).

- K = 1,000 queueing stations, N = 1..1,000,000: the exact sweep and its bounds (asymptotic, balanced
  job, geometric) in one process, interleaved rounds, CPU; the bounds' floor is the sweep they
  accompany (issue 37: they took 1.13 s against the sweep's 0.66 s; target: a fraction of it);
- the same sweep's CPU and peak memory in a fresh interpreter (its own ru_maxrss, imports included) beside
  the interpreter with numpy and numba alone, and N = 1..200,000 with a 4-server station;
- multi-class exact MVA keeping a ring of the lattice: (160, 160, 160) at K = 10 (its own peak by
  tracemalloc; target under 100 MB, was +318 MiB) and (140, 140, 140) at K = 100 (was refused at an
  estimated 2.24 GB), CPU against the estimate the limits judge it by;
- the command line, K = 1,000, N = 1..1,000,000 as CSV with the bounds at every N, the same with
  --at 10,1000000, and every station (--stations) at N = 1..1,000: a million rows (the whole
  process's CPU, imports included).

Times are CPU (process time), which the load of other work on the machine inflates less than the
clock.

The figures are written to bench/figures/mva_sweep.json (docs/background/benchmarks.md quotes them).

Usage: python bench/mva_sweep.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc

import numpy as np
from timing import record

from qmodel import kernels
from qmodel.networks import exact
from qmodel.networks.bounds import closed_bounds
from qmodel.networks.model import network

CASE = """
import json, resource, time
import numpy as np
from qmodel import kernels
from qmodel.networks import network, solve

kernels.COMPILE_FROM = 0.0                        # compiled from the start, as a sweep this long is
stations, population, servers = {stations}, {population}, {servers}
demands = np.random.default_rng(2026).uniform(0.1, 1.0, stations)
net = network(demands, servers=[servers] + [1] * (stations - 1), think_time=10.0, population=1)
solve(network([1.0, 2.0], servers=[servers, 1], population=1), population=3000)   # compiled (cached) first
start = time.process_time()
result = solve(net, population=population, at=[n for n in (10, 100, 1000) if n <= population])
seconds = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"seconds": seconds, "peak": peak, "x": float(result.throughput[0])}}))
"""


def run(stations: int, population: int, servers: int) -> dict:
    code = CASE.format(stations=stations, population=population, servers=servers)
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def run_cli(stations: int, population: int, *extra: str) -> float:
    """CPU seconds (user and system) of ``qmodel mva`` over K random demands to N as CSV, output
    discarded: the whole process, imports included."""
    rng = random.Random(2026)
    demands = ",".join(f"{rng.uniform(0.1, 1.0):.4f}" for _ in range(stations))
    command = [
        sys.executable,
        "-c",
        "from qmodel.cli import main; main()",
        "mva",
        "--demand",
        demands,
        "--think-time",
        "1",
        "--population",
        f"1..{population}",
        "--format",
        "csv",
        *extra,
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def cpu(call) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    kernels.COMPILE_FROM = 0.0
    figures: dict[str, object] = {}

    net = network(np.random.default_rng(2026).uniform(0.1, 1.0, 1000), think_time=1.0, population=1)
    populations = np.arange(1, 1_000_001)
    exact.sweep(net, 10)
    closed_bounds(net, populations[:10])
    sweeps, bounds = [], []
    for _ in range(rounds):
        sweeps.append(cpu(lambda: exact.sweep(net, populations.size)))
        bounds.append(cpu(lambda: closed_bounds(net, populations)))
    ratios = [b / s for b, s in zip(bounds, sweeps, strict=True)]
    figures["bounds"] = {
        "sweep_s": statistics.median(sweeps),
        "bounds_s": statistics.median(bounds),
        "ratio": statistics.median(ratios),
        "ratio_range": [min(ratios), max(ratios)],
    }
    print(
        f"K = 1,000, N = 1..1,000,000: exact sweep {figures['bounds']['sweep_s']:.2f} s, bounds "
        f"{figures['bounds']['bounds_s']:.2f} s CPU (ratio {figures['bounds']['ratio']:.2f}, "
        f"{min(ratios):.2f}-{max(ratios):.2f}; medians of {rounds} interleaved rounds)"
    )

    baseline = run(2, 3, 1)
    figures["interpreter_mb"] = baseline["peak"] / 1e6
    print(f"interpreter with numpy and numba loaded: {baseline['peak'] / 1e6:.0f} MB peak")
    for key, (stations, population, servers) in {
        "sweep_queues": (1000, 1_000_000, 1),
        "sweep_four_server": (10, 200_000, 4),
    }.items():
        measured = run(stations, population, servers)
        figures[key] = {
            "stations": stations,
            "population": population,
            "s": measured["seconds"],
            "peak_mb": measured["peak"] / 1e6,
        }
        kind = "a 4-server station" if servers > 1 else "queues"
        print(
            f"K = {stations:,} ({kind}), N = 1..{population:,}: {measured['seconds']:.2f} s CPU, peak "
            f"{measured['peak'] / 1e6:.0f} MB"
        )

    for key, (stations, count) in {"lattice_160": (10, 160), "lattice_140": (100, 140)}.items():
        model = network(np.random.default_rng(2026).uniform(0.1, 1.0, (3, stations)), population=[count] * 3)
        exact.lattice(model, np.ones(3))
        estimate_bytes, estimate_seconds = exact.estimate_lattice(model, model.populations)
        tracemalloc.start()
        seconds = cpu(lambda model=model: exact.lattice(model, model.populations))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        figures[key] = {
            "stations": stations,
            "population": count,
            "s": seconds,
            "peak_mb": peak / 1e6,
            "estimate_s": estimate_seconds,
            "estimate_mb": estimate_bytes / 1e6,
        }
        print(
            f"3 classes ({count}, {count}, {count}), K = {stations}: {seconds:.2f} s CPU (estimated "
            f"{estimate_seconds:.2f} s), {peak / 1e6:.1f} MB at its peak (estimated "
            f"{estimate_bytes / 1e6:.1f})"
        )

    cli = {}
    for key, (population, extra) in {
        "csv": (1_000_000, ()),
        "csv_at": (1_000_000, ("--at", "10,1000000")),
        "csv_stations": (1000, ("--stations",)),
    }.items():
        cli[key] = run_cli(1000, population, *extra)
        print(
            f"qmodel mva, K = 1,000, N = 1..{population:,}, CSV {' '.join(extra) or '(every N)'}: "
            f"{cli[key]:.1f} s CPU"
        )
    figures["cli"] = cli
    figures["cli_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / 1e6
    record("mva_sweep", figures)


if __name__ == "__main__":
    main()
