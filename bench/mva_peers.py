"""MVA engine against the reference solvers, side by side in one run (figures; not a test).

Peers, each skipped (and said so) when absent, through their public functions only:
- LINE (``pip install line-solver`` into the interpreter running this script): line_solver.api.pfqn's
  pfqn_mva (queues and a think time) and pfqn_mvald (load-dependent MVA), line_solver.api.qsys's
  erlang_c;
- GNU Octave with the queueing package (Debian: octave, octave-queueing): qncsmva, qncmmva, kept
  running as one process beside this one (its start-up is not timed; each call is timed inside it).

Rounds are interleaved (each round times every solver once, so the machine's load hits them alike);
the figures are medians over the rounds, and each ratio is the median of the per-round ratios.

Workloads: single-class exact MVA, K = 100, N = 1..10,000 (issue 5); 3-class exact MVA,
populations (30, 30, 30), K = 10; Erlang C for c = 1..1000 at a per-server load of 0.9; 14
two-server stations and 6 queues at N = 1,000 (issue 37), against Octave's qncsmva (LINE's
pfqn_mvald, quadratic in N, took 0.4, 1.9 and 5.5 s at N = 50, 100 and 200 at a load of 20: not run
at 1,000); the 2-class model with an 8-server CPU at (50, 50) (issue 11: exact X = 0.5702089134,
0.8595808026 by a positive-term convolution); and an 8-server station past saturation (N = 60..200)
against exact rationals.

The figures are written to bench/figures/mva_peers.json, from which docs/background/benchmarks.md
is generated at build time (docs/_hooks/benchmarks.py).

Usage: python bench/mva_peers.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from timing import record

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
SERVER_DEMANDS = np.random.default_rng(37).uniform(0.1, 1.0, 20)  # 14 two-server stations, 6 queues
SERVER_COUNTS = [2] * 14 + [1] * 6
SERVER_THINK = 10.0
SERVER_N = 1000
TWO_CLASS_DEMANDS = np.array([[8.0, 0.5], [4.0, 0.8]])  # classes × (8-server CPU, disk)
TWO_CLASS_THINK = np.array([2.0, 5.0])  # the delay station, as think time
TWO_CLASS_N = (50, 50)
TWO_CLASS_EXACT = np.array([0.5702089134, 0.8595808026])
SATURATION_N = [60, 80, 100, 200]


def vector(values) -> str:
    return "[" + " ".join(repr(float(v)) for v in np.ravel(values)) + "]"


class Octave:
    """octave-cli with the queueing package as one process: each call timed inside it (tic/toc)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["octave-cli", "-q", "--no-line-editing"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.send("pkg load queueing; more off;")

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def timed(self, call: str, result: str) -> tuple[float, list[float]]:
        """(seconds, values): ``call`` timed, then ``result`` (an expression of its outputs) printed."""
        self.send(
            f"tic; {call}; t = toc; printf('%.9g %s\\n', t, sprintf('%.15g ', {result})); fflush(stdout);"
        )
        assert self.process.stdout is not None
        seconds, *values = self.process.stdout.readline().split()
        return float(seconds), [float(v) for v in values]

    def close(self) -> None:
        self.send("exit")
        self.process.wait(timeout=60)


def octave() -> Octave | None:
    return Octave() if shutil.which("octave-cli") else None


def line_solver() -> dict[str, Callable] | None:
    try:
        from line_solver.api.pfqn import pfqn_mva, pfqn_mvald
        from line_solver.api.qsys import erlang_c as line_erlang_c
    except ImportError:
        return None
    return {"pfqn_mva": pfqn_mva, "pfqn_mvald": pfqn_mvald, "erlang_c": line_erlang_c}


def timed(call: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def exact_throughput(population: int) -> float:
    """X(N) of the saturation model (8-server station, queue, delay) by Buzen's convolution in rationals."""
    demands, kinds = [Fraction(8), Fraction(1, 2), Fraction(2)], [8, 1, 0]
    constants = [Fraction(1)] + [Fraction(0)] * population
    for demand, servers in zip(demands, kinds, strict=True):
        terms = [Fraction(1)]
        for j in range(1, population + 1):
            terms.append(terms[-1] * demand / (j if servers == 0 else min(j, servers)))
        constants = [sum(terms[j] * constants[n - j] for j in range(n + 1)) for n in range(population + 1)]
    return float(constants[population - 1] / constants[population])


def workloads(line: dict[str, Callable] | None, oct_: Octave | None) -> dict[str, dict[str, Callable]]:
    """Per workload, per solver: a call returning (seconds, the value compared)."""
    single = network(SINGLE_DEMANDS, think_time=SINGLE_THINK, population=SINGLE_N)
    multi = network(MULTI_DEMANDS, population=list(MULTI_N))
    servers = network(SERVER_DEMANDS, servers=SERVER_COUNTS, think_time=SERVER_THINK, population=SERVER_N)
    two = network(TWO_CLASS_DEMANDS, servers=[8, 1], think_time=TWO_CLASS_THINK, population=list(TWO_CLASS_N))
    cases: dict[str, dict[str, Callable]] = {
        "single": {"qmodel": lambda: timed(lambda: solve(single).throughput[0])},
        "multi": {"qmodel": lambda: timed(lambda: solve(multi).throughput[0])},
        "erlang": {"qmodel": lambda: timed(lambda: erlang_c(SERVERS, ERLANG_LOAD * SERVERS))},
        "servers": {"qmodel": lambda: timed(lambda: solve(servers).throughput[0])},
        "two_class": {"qmodel": lambda: timed(lambda: solve(two).throughput)},
    }
    if line is not None:
        two_rates = np.ones((2, sum(TWO_CLASS_N)))
        two_rates[0] = np.minimum(np.arange(1, sum(TWO_CLASS_N) + 1), 8)
        cases["single"]["line-solver"] = lambda: timed(
            lambda: float(
                np.ravel(
                    line["pfqn_mva"](SINGLE_DEMANDS[:, None], np.array([SINGLE_N]), np.array([SINGLE_THINK]))[
                        0
                    ]
                )[0]
            )
        )
        cases["multi"]["line-solver"] = lambda: timed(
            lambda: float(np.ravel(line["pfqn_mva"](MULTI_DEMANDS.T, np.array(MULTI_N), np.zeros(3))[0])[0])
        )
        cases["erlang"]["line-solver"] = lambda: timed(
            lambda: np.array([line["erlang_c"](int(c), ERLANG_LOAD * c) for c in SERVERS])
        )
        cases["two_class"]["line-solver"] = lambda: timed(
            lambda: np.ravel(
                line["pfqn_mvald"](TWO_CLASS_DEMANDS.T, np.array(TWO_CLASS_N), TWO_CLASS_THINK, two_rates)[0]
            )
        )
    if oct_ is not None:
        rows = "; ".join(vector(row)[1:-1] for row in MULTI_DEMANDS)
        oct_.send(
            f"S1 = {vector(SINGLE_DEMANDS)}; S3 = [{rows}]; S2 = {vector(SERVER_DEMANDS)};"
            f" m2 = {vector(SERVER_COUNTS)};"
        )

        def octave_call(call: str, result: str, index: int | slice = 0) -> Callable:
            def run():
                seconds, values = oct_.timed(call, result)
                return seconds, values[index] if isinstance(index, int) else np.array(values[index])

            return run

        cases["single"]["Octave"] = octave_call(
            f"[U, R, Q, X] = qncsmva({SINGLE_N}, S1, ones(1, 100), ones(1, 100), {SINGLE_THINK})", "X(1)"
        )
        cases["multi"]["Octave"] = octave_call(
            f"[U, R, Q, X] = qncmmva([{' '.join(map(str, MULTI_N))}], S3, ones(size(S3)))", "X(1, 1)"
        )
        cases["servers"]["Octave"] = octave_call(
            f"[U, R, Q, X] = qncsmva({SERVER_N}, S2, ones(1, 20), m2, {SERVER_THINK})", "X(1)"
        )
        # FCFS multi-server needs one service time per visit for all classes: S = 1, V = (8, 4) at the CPU
        cases["two_class"]["Octave"] = octave_call(
            "[U, R, Q, X] = qncmmva([50 50], [1 0.5 2; 1 0.8 5], [8 1 1; 4 1 1], [8 1 -1])",
            "[X(1, 1) / 8, X(2, 1) / 4]",
            slice(0, 2),
        )
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    line, oct_ = line_solver(), octave()
    print("line-solver: " + ("present" if line else "absent (pip install line-solver): skipped"))
    print(
        "Octave queueing: "
        + ("present" if oct_ else "absent (apt-get install octave octave-queueing): skipped")
    )
    cases = workloads(line, oct_)
    for solvers in cases.values():  # warm up: imports, compiled code, Octave's packages
        for call in solvers.values():
            call()
    times: dict[str, dict[str, list[float]]] = {w: {s: [] for s in solvers} for w, solvers in cases.items()}
    values: dict[str, dict[str, object]] = {w: {} for w in cases}
    for _ in range(rounds):
        for workload, solvers in cases.items():
            for name, call in solvers.items():
                seconds, value = call()
                times[workload][name].append(seconds)
                values[workload][name] = value
    saturation: dict[str, list[float]] = {}
    if oct_ is not None:  # where 1 − Σ p(j) cancels: the 8-server station past saturation
        saturation["Octave"] = [
            oct_.timed(f"[U, R, Q, X] = qncsmva({n}, [8 0.5 2], [1 1 1], [8 1 -1])", "X(1)")[1][0]
            for n in SATURATION_N
        ]
        oct_.close()
    figures: dict[str, dict] = {}
    for workload, solvers in times.items():
        ours = solvers["qmodel"]
        entry = {"qmodel_ms": statistics.median(ours) * 1e3, "peers": {}}
        for name, peer in solvers.items():
            if name == "qmodel":
                continue
            ratios = [p / q for p, q in zip(peer, ours, strict=True)]
            entry["peers"][name] = {
                "ms": statistics.median(peer) * 1e3,
                "ratio": statistics.median(ratios),
                "ratio_range": [min(ratios), max(ratios)],
            }
        figures[workload] = entry
    reference = values["servers"]["qmodel"]
    for name, value in values["servers"].items():
        figures["servers"].setdefault("deviation", {})[name] = abs(float(value) / float(reference) - 1)
    for name, value in values["two_class"].items():
        figures["two_class"].setdefault("deviation", {})[name] = float(
            np.max(np.abs(np.asarray(value, float) / TWO_CLASS_EXACT - 1))
        )
    erlang = {name: np.asarray(value, float) for name, value in values["erlang"].items()}
    figures["erlang"]["not_finite"] = {name: int((~np.isfinite(v)).sum()) for name, v in erlang.items()}
    figures["erlang"]["deviation"] = {
        name: float(np.nanmax(np.abs(v / erlang["qmodel"] - 1))) for name, v in erlang.items()
    }
    saturated = solve(network([8.0, 0.5, 2.0], servers=[8, 1, "delay"], population=200)).curve
    exact = [exact_throughput(n) for n in SATURATION_N]
    figures["saturation"] = {
        "populations": SATURATION_N,
        "exact": exact,
        **saturation,
        "qmodel": [float(saturated.throughput[n - 1]) for n in SATURATION_N],
    }
    names = {
        "single": "single class, K = 100, N = 1..10,000",
        "multi": "3 classes, (30, 30, 30), K = 10",
        "erlang": "Erlang C, c = 1..1000 at 0.9",
        "servers": "14 two-server + 6 queues, N = 1,000",
        "two_class": "2 classes, 8-server CPU, (50, 50)",
    }
    for workload, entry in figures.items():
        if workload not in names:
            continue
        peers = ", ".join(
            f"{name} {peer['ms']:.1f} ms ({peer['ratio']:.1f}x)" for name, peer in entry["peers"].items()
        )
        print(f"{names[workload]:40s} qmodel {entry['qmodel_ms']:8.2f} ms; {peers or 'no peer'}")
    print(f"14 two-server + 6 queues, X(N) deviation from qmodel: {figures['servers']['deviation']}")
    print(f"2 classes, 8-server CPU, deviation from exact: {figures['two_class']['deviation']}")
    print(f"Erlang C values not finite: {figures['erlang']['not_finite']}")
    for name in ("qmodel", *saturation):
        print(
            f"8-server station past saturation, N = {SATURATION_N}: {name} X = "
            + ", ".join(f"{x:.6g}" for x in figures["saturation"][name])
            + f" (exact {', '.join(f'{x:.6g}' for x in exact)})"
        )
    record("mva_peers", {"rounds": rounds, **figures})


if __name__ == "__main__":
    main()
