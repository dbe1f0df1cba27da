"""MVA engine against the reference solvers, side by side in one run (prints its figures; not a test).

Peers, each skipped (and said so) when absent:
- LINE (``pip install line-solver`` into the interpreter running this script): pfqn_mva, and the
  Erlang C of its M/M/k queue (qsys_mmk);
- GNU Octave with the queueing package (Debian: octave, octave-queueing): qncsmva, qncmmva.

Workloads (issue 5): single-class exact MVA, K = 100, N = 1..10,000; 3-class exact MVA,
populations (30, 30, 30), K = 10; Erlang C for c = 1..1000 at one per-server load; and the
robustness case, an 8-server station past saturation (N = 60..200). Issue 11: a 2-class model
with an 8-server CPU at populations (50, 50), exact (computed by a positive-term convolution:
X = 0.5702089134, 0.8595808026), against LINE's pfqn_mvald and Octave's qncmmva.

Usage: python bench/mva_peers.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from fractions import Fraction

import numpy as np
from timing import median_time

from qmodel.algorithms.queueing import erlang_c
from qmodel.networks.model import network
from qmodel.networks.solver import solve

RNG = np.random.default_rng(2026)
SINGLE_DEMANDS = RNG.uniform(0.1, 1.0, 100)
SINGLE_THINK = 10.0
SINGLE_N = 10_000
MULTI_DEMANDS = RNG.uniform(0.1, 1.0, (3, 10))
MULTI_N = (30, 30, 30)
ERLANG_LOAD = 0.9
SERVERS = np.arange(1, 1001)


def line_solver():
    try:
        from line_solver.api.pfqn.mva import pfqn_mva
        from line_solver.api.qsys.basic import _erlang_c
    except ImportError:
        return None
    return pfqn_mva, _erlang_c


def octave_times(repeats: int) -> dict[str, float] | None:
    """Median seconds of qncsmva and qncmmva inside Octave (start-up excluded), and its X values."""
    if shutil.which("octave-cli") is None:
        return None
    single = " ".join(repr(float(d)) for d in SINGLE_DEMANDS)
    multi = "; ".join(" ".join(repr(float(d)) for d in row) for row in MULTI_DEMANDS)
    script = f"""
pkg load queueing;
S = [{single}]; V = ones(1, {SINGLE_DEMANDS.size});
t = zeros(1, {repeats});
m = ones(1, {SINGLE_DEMANDS.size});
for i = 1:{repeats}; tic; [U, R, Q, X] = qncsmva({SINGLE_N}, S, V, m, {SINGLE_THINK}); t(i) = toc; end
printf("single %.9g %.12g\\n", median(t), X(1));
S3 = [{multi}]; V3 = ones(size(S3));
for i = 1:{repeats}; tic; [U, R, Q, X] = qncmmva([{' '.join(map(str, MULTI_N))}], S3, V3); t(i) = toc; end
printf("multi %.9g %.12g\\n", median(t), X(1, 1));
"""
    with tempfile.NamedTemporaryFile("w", suffix=".m", delete=False) as handle:
        handle.write(script)
    try:
        output = subprocess.run(["octave-cli", "-q", handle.name], capture_output=True, text=True,
                                timeout=3600).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    figures = {}
    for line in output.splitlines():
        name, seconds, x = line.split()
        figures[name] = float(seconds)
        figures[f"{name}_x"] = float(x)
    return figures if "single" in figures and "multi" in figures else None


def octave_saturation() -> str:
    """What Octave's qncsmva gives for an 8-server station as N passes saturation."""
    if shutil.which("octave-cli") is None:
        return "Octave absent: skipped"
    script = ("pkg load queueing; for N = [60 80 100 200]; [U, R, Q, X] = qncsmva(N, [8 0.5 2], [1 1 1], "
              "[8 1 -1]); printf('N=%d X=%.6g ', N, X(1)); end")
    output = subprocess.run(["octave-cli", "-q", "--eval", script], capture_output=True, text=True).stdout
    return "Octave qncsmva: " + output.strip()


TWO_CLASS_DEMANDS = np.array([[8.0, 0.5], [4.0, 0.8]])     # classes × (8-server CPU, disk)
TWO_CLASS_THINK = np.array([2.0, 5.0])                       # the delay station, as think time
TWO_CLASS_N = (50, 50)
TWO_CLASS_EXACT = np.array([0.5702089134, 0.8595808026])


def two_class_network():
    return network(TWO_CLASS_DEMANDS, servers=[8, 1], think_time=TWO_CLASS_THINK,
                   population=list(TWO_CLASS_N))


def line_two_class(repeats: int) -> str:
    """LINE's pfqn_mvald (load-dependent MVA, its default stabilisation) on the 2-class 8-server model."""
    try:
        from line_solver.api.pfqn.mvald import pfqn_mvald
    except ImportError:
        return "line-solver: absent: skipped"
    rates = np.ones((2, sum(TWO_CLASS_N)))
    rates[0] = np.minimum(np.arange(1, sum(TWO_CLASS_N) + 1), 8)
    populations = np.array(TWO_CLASS_N)
    seconds, value = median_time(lambda: pfqn_mvald(TWO_CLASS_DEMANDS.T, populations, TWO_CLASS_THINK, rates),
                                 repeats)
    x = np.ravel(value[0])
    return (f"line-solver pfqn_mvald 2-class 8-server (50,50) {seconds * 1e3:8.1f} ms  X = {x}  "
            f"relative error {np.max(np.abs(x / TWO_CLASS_EXACT - 1)):.1e}")


def octave_two_class() -> str:
    """Octave's qncmmva on the 2-class 8-server model (its FCFS multi-server needs one service time per
    visit for all classes: S = 1, V = (8, 4) at the CPU; X per class = CPU throughput / V)."""
    if shutil.which("octave-cli") is None:
        return "Octave absent: skipped"
    script = ("pkg load queueing; S = [1 0.5 2; 1 0.8 5]; V = [8 1 1; 4 1 1]; tic; "
              "[U, R, Q, X] = qncmmva([50 50], S, V, [8 1 -1]); t = toc; "
              "printf('%.9g %.9g %.9g', t, X(1, 1) / 8, X(2, 1) / 4);")
    run = subprocess.run(["octave-cli", "-q", "--eval", script], capture_output=True, text=True)
    output = run.stdout.split()
    if len(output) < 3:
        return "Octave qncmmva 2-class 8-server (50,50): failed: " + run.stderr.strip().splitlines()[0]
    seconds, x1, x2 = (float(v) for v in output[-3:])
    return (f"Octave qncmmva 2-class 8-server (50,50) {seconds * 1e3:8.1f} ms  X = [{x1:.6g} {x2:.6g}] "
            "(negative: p(0) = 1 − Σ cancels past saturation)" if min(x1, x2) < 0 else
            f"Octave qncmmva 2-class 8-server (50,50) {seconds * 1e3:8.1f} ms  X = [{x1:.6g} {x2:.6g}]")


def exact_throughput(population: int) -> float:
    """X(N) of the saturation model by Buzen's convolution in rationals."""
    demands, kinds = [Fraction(8), Fraction(1, 2), Fraction(2)], [8, 1, 0]
    constants = [Fraction(1)] + [Fraction(0)] * population
    for demand, servers in zip(demands, kinds, strict=True):
        terms = [Fraction(1)]
        for j in range(1, population + 1):
            terms.append(terms[-1] * demand / (j if servers == 0 else min(j, servers)))
        constants = [sum(terms[j] * constants[n - j] for j in range(n + 1)) for n in range(population + 1)]
    return float(constants[population - 1] / constants[population])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats

    single_model = network(SINGLE_DEMANDS, think_time=SINGLE_THINK, population=SINGLE_N)
    multi_model = network(MULTI_DEMANDS, population=list(MULTI_N))
    ours = {
        "single": median_time(lambda: solve(single_model), repeats),
        "multi": median_time(lambda: solve(multi_model), repeats),
        "erlang": median_time(lambda: erlang_c(SERVERS, ERLANG_LOAD * SERVERS), repeats),
    }
    print(f"qmodel: single-class K=100 N=1..10000 {ours['single'][0] * 1e3:8.2f} ms  "
          f"X(N) = {ours['single'][1].throughput[0]:.12g}")
    print(f"qmodel: 3-class (30,30,30) K=10       {ours['multi'][0] * 1e3:8.2f} ms  "
          f"X = {np.array2string(ours['multi'][1].throughput, precision=10)}")
    print(f"qmodel: Erlang C c=1..1000 at 0.9     {ours['erlang'][0] * 1e3:8.2f} ms  "
          f"C(1000) = {ours['erlang'][1][-1]:.12g} (finite: {bool(np.all(np.isfinite(ours['erlang'][1])))})")
    floor = SINGLE_DEMANDS.size * SINGLE_N
    print(f"        physical floor: K·N = {floor:,} multiply-adds; qmodel runs "
          f"{floor / ours['single'][0] / 1e6:.0f} M per second of the single-class sweep (results included)")

    peers = line_solver()
    if peers is None:
        print("line-solver: absent (pip install line-solver): skipped")
    else:
        pfqn_mva, line_erlang_c = peers
        demand = SINGLE_DEMANDS[:, None]
        seconds, value = median_time(lambda: pfqn_mva(demand, np.array([SINGLE_N]), np.array([SINGLE_THINK])),
                                     repeats)
        x = float(np.ravel(value[0])[0])
        print(f"line-solver pfqn_mva single  {seconds * 1e3:8.2f} ms  X(N) = {x:.12g}  "
              f"qmodel is {seconds / ours['single'][0]:.1f}x faster (target 3x)")
        seconds, value = median_time(lambda: pfqn_mva(MULTI_DEMANDS.T, np.array(MULTI_N), np.zeros(3)),
                                     max(1, repeats // 3))
        print(f"line-solver pfqn_mva 3-class {seconds * 1e3:8.2f} ms  X = {np.ravel(value[0])}  "
              f"qmodel is {seconds / ours['multi'][0]:.1f}x faster (target 10x)")
        seconds, value = median_time(lambda: [line_erlang_c(int(c), ERLANG_LOAD) for c in SERVERS], repeats)
        print(f"line-solver Erlang C (qsys_mmk) {seconds * 1e3:8.2f} ms  C(1000) = {value[-1]}  "
              f"qmodel is {seconds / ours['erlang'][0]:.1f}x faster (target 10x)")

    octave = octave_times(max(1, repeats // 2))
    if octave is None:
        print("Octave with the queueing package: absent (apt-get install octave octave-queueing): skipped")
    else:
        print(f"Octave qncsmva single  {octave['single'] * 1e3:8.2f} ms  X(N) = {octave['single_x']:.12g}  "
              f"qmodel is {octave['single'] / ours['single'][0]:.1f}x faster (target 20x)")
        print(f"Octave qncmmva 3-class {octave['multi'] * 1e3:8.2f} ms  X1 = {octave['multi_x']:.12g}  "
              f"qmodel is {octave['multi'] / ours['multi'][0]:.1f}x faster")

    saturated = network([8.0, 0.5, 2.0], servers=[8, 1, "delay"], population=200)
    curve = solve(saturated).curve
    deviation = max(abs(curve.throughput[n - 1] / exact_throughput(n) - 1) for n in (60, 80, 100, 200))
    print("8-server station past saturation: qmodel X at N = 60, 80, 100, 200: "
          + ", ".join(f"{curve.throughput[n - 1]:.6g}" for n in (60, 80, 100, 200))
          + f" (largest relative deviation from exact rationals {deviation:.1e})")
    print(octave_saturation())

    seconds, result = median_time(lambda: solve(two_class_network()), repeats)
    print(f"qmodel: 2-class 8-server (50,50) exact {seconds * 1e3:8.2f} ms  X = {result.throughput}  "
          f"relative error {np.max(np.abs(result.throughput / TWO_CLASS_EXACT - 1)):.1e}")
    print(line_two_class(max(1, repeats // 3)))
    print(octave_two_class())


if __name__ == "__main__":
    main()
