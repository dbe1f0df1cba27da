"""Benchmark: wall time of quick CLI answers against `python -c "import numpy, click, rich"`.

Runs the commands interleaved (so machine noise hits them alike) and prints the
medians and each one's ratio to the baseline, piped and at a terminal (a
pseudo-terminal). Targets: `qmodel calc mm1` at most 1.25 (issue 22); `qmodel mva`
on the docs' 4-station example at most 1.5 (issue 37: its engine runs as Python
below the size where loading numba pays, qmodel.kernels). All run with bytecode
written and read as in a normal install (timing.installed_env). Also lists the heavy
imports of each path: the calc path imports neither sympy nor scipy, nor rich's
console or table (qmodel.output draws the table); neither imports numba, nor does `qmodel validate`
(its one network, a pool of drives, is small enough to run as Python).

The figures are written to bench/figures/quick_answer.json (docs/background/benchmarks.md quotes them).

    python bench/quick_answer.py [--runs 30]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys

from timing import MVA_EXAMPLE, QUICK, installed_env, record, terminal_wall_time, wall_time

TARGETS = {"calc": 1.25, "mva": 1.5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    qmodel = shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    baseline_cmd = [sys.executable, "-c", "import numpy, click, rich"]
    commands = {"calc": QUICK, "mva": MVA_EXAMPLE}
    env = installed_env()
    for command in (baseline_cmd, *([qmodel, *args] for args in commands.values())):
        wall_time(command, env)  # warm the file cache, write the bytecode
    medians = {}
    for where, timed in (("piped", wall_time), ("terminal", terminal_wall_time)):
        times: dict[str, list[float]] = {name: [] for name in ("baseline", *commands)}
        for _ in range(runs):
            times["baseline"].append(timed(baseline_cmd, env))
            for name, args in commands.items():
                times[name].append(timed([qmodel, *args], env))
        medians[where] = {name: statistics.median(values) * 1e3 for name, values in times.items()}
    print(f"runs: {runs} each, interleaved; medians")
    for where, figures in medians.items():
        print(f"{where}")
        print(f"  baseline  python -c 'import numpy, click, rich': {figures['baseline']:7.1f} ms")
        for name, args in commands.items():
            print(f"  {name:8s}  qmodel {' '.join(args)}: {figures[name]:7.1f} ms")
            print(f"            ratio {figures[name] / figures['baseline']:.2f}  (target <= {TARGETS[name]})")
    heavy_imports = {}
    for name, args in {**commands, "validate": ["validate"]}.items():  # validate: imports only
        probe = subprocess.run(
            [
                sys.executable,
                "-X",
                "importtime",
                "-c",
                f"import sys; from qmodel.cli import main; sys.argv=['qmodel', *{args!r}]; main()",
            ],
            capture_output=True,
            text=True,
            env=env,
        )
        imported = {line.split("|")[-1].strip() for line in probe.stderr.splitlines()}
        heavy = sorted(
            {
                module.split(".")[0]
                for module in imported
                if module.split(".")[0] in ("sympy", "scipy", "numba")
            }
            | (imported & {"rich.console", "rich.table"})
        )
        print(f"heavy imports on the {name} path: {', '.join(heavy) or 'none'}")
        heavy_imports[name] = heavy
    record(
        "quick_answer",
        {"runs": runs, "medians_ms": medians, "heavy_imports": heavy_imports, "targets": TARGETS},
    )


if __name__ == "__main__":
    main()
