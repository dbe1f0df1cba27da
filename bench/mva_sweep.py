"""Sweeps in bounded memory: time and peak memory of single-class exact MVA sweeps (figures; not a test).

Each case runs in a fresh interpreter so that its peak resident memory (ru_maxrss) is its own,
imports (numpy, numba) included. Targets (issue 11, item 5; issue 12):

- K = 1,000 queueing stations, N = 1..1,000,000, stations kept at N = 10, 100, 1000: ≤ 5 s, ≤ 300 MB;
- N = 1..200,000 with a 4-server station (was 18 s: the marginals cost N² before they were truncated
  at the rate table's length);
- the command line, K = 1,000, N = 1..1,000,000 as CSV with the bounds at every N (issue 22: tried to
  allocate 7.44 GiB for N x K bound arrays; now O(N + K), written in blocks), the same with --at
  10,1000000, and every station (--stations) at N = 1..1,000: a million rows.

Usage: python bench/mva_sweep.py
"""

from __future__ import annotations

import json
import subprocess
import sys

CASE = """
import json, resource, time
import numpy as np
from qmodel.networks import network, solve

stations, population, servers = {stations}, {population}, {servers}
demands = np.random.default_rng(2026).uniform(0.1, 1.0, stations)
net = network(demands, servers=[servers] + [1] * (stations - 1), think_time=10.0, population=1)
solve(network([1.0, 2.0], servers=[servers, 1], population=1), population=3)   # compile (cached) first
start = time.perf_counter()
result = solve(net, population=population, at=[n for n in (10, 100, 1000) if n <= population])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"seconds": seconds, "peak": peak, "x": float(result.throughput[0])}}))
"""


def run(stations: int, population: int, servers: int) -> dict:
    code = CASE.format(stations=stations, population=population, servers=servers)
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def run_cli(stations: int, population: int, *extra: str) -> tuple[float, float]:
    """(seconds, peak bytes) of ``qmodel mva`` over K random demands to N as CSV, output discarded."""
    import random
    import resource
    import time

    rng = random.Random(2026)
    demands = ",".join(f"{rng.uniform(0.1, 1.0):.4f}" for _ in range(stations))
    command = [sys.executable, "-c", "from qmodel.cli import main; main()", "mva", "--demand", demands,
               "--think-time", "1", "--population", f"1..{population}", "--format", "csv", *extra]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


def main() -> None:
    baseline = run(2, 3, 1)
    print(f"interpreter with numpy and numba loaded: {baseline['peak'] / 1e6:.0f} MB peak")
    for stations, population, servers, target in ((1000, 1_000_000, 1, "target ≤ 5 s, ≤ 300 MB"),
                                                  (10, 200_000, 4, "was 18 s before truncation")):
        figures = run(stations, population, servers)
        kind = "a 4-server station" if servers > 1 else "queues"
        print(f"K = {stations:,} ({kind}), N = 1..{population:,}: {figures['seconds']:.2f} s, "
              f"peak {figures['peak'] / 1e6:.0f} MB, X(N) = {figures['x']:.9g} ({target})")
    for population, extra in ((1_000_000, ()), (1_000_000, ("--at", "10,1000000")), (1000, ("--stations",))):
        seconds, peak = run_cli(1000, population, *extra)
        rows = " ".join(extra) or "(every N)"
        print(f"qmodel mva, K = 1,000, N = 1..{population:,}, CSV {rows}: {seconds:.1f} s, "
              f"peak so far {peak / 1e6:.0f} MB (was a 7.44 GiB allocation; --stations 17.6 s CPU, 1.6 GB)")


if __name__ == "__main__":
    main()
