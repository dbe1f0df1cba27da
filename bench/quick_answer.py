"""Benchmark: wall time of a quick CLI answer against `python -c "import numpy, click, rich"`.

Runs both commands interleaved (so machine noise hits both alike) and prints
the medians and their ratio, piped and at a terminal (a pseudo-terminal). Target
(issue 22): ratio at most 1.25. Both run with bytecode written and read as in a
normal install (timing.installed_env). Also checks that the quick path imports
neither sympy nor scipy, nor rich's console or table (qmodel.output draws the table).

    python bench/quick_answer.py [--runs 30]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys

from timing import QUICK, installed_env, terminal_wall_time, wall_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    qmodel = shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    baseline_cmd = [sys.executable, "-c", "import numpy, click, rich"]
    quick_cmd = [qmodel, *QUICK]
    env = installed_env()
    for command in (baseline_cmd, quick_cmd):  # warm the file cache, write the bytecode
        wall_time(command, env)
    medians = {}
    for where, timed in (("piped", wall_time), ("terminal", terminal_wall_time)):
        baseline, quick = [], []
        for _ in range(runs):
            baseline.append(timed(baseline_cmd, env))
            quick.append(timed(quick_cmd, env))
        medians[where] = statistics.median(baseline) * 1e3, statistics.median(quick) * 1e3
    probe = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         f"import sys; from qmodel.cli import main; sys.argv=['qmodel', *{QUICK!r}]; main()"],
        capture_output=True, text=True, env=env,
    )
    imported = {line.split("|")[-1].strip() for line in probe.stderr.splitlines()}
    heavy = sorted({name.split(".")[0] for name in imported if name.split(".")[0] in ("sympy", "scipy")}
                   | (imported & {"rich.console", "rich.table"}))
    print(f"runs: {runs} each, interleaved; medians")
    for where, (base_ms, quick_ms) in medians.items():
        print(f"{where}")
        print(f"  baseline  python -c 'import numpy, click, rich': {base_ms:7.1f} ms")
        print(f"  quick     qmodel {' '.join(QUICK)}: {quick_ms:7.1f} ms")
        print(f"  ratio     {quick_ms / base_ms:.2f}  (target <= 1.25)")
    print(f"heavy imports on the quick path: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main()
