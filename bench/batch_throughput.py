"""Benchmark: `qmodel batch` on a 1,000,000-row CSV of a 5-input formula, end to end, against the
standard library's csv module doing the least a batch must: read the file and write it back with three
extra columns.

Writes a CSV of transaction_elongation inputs (cf_requests, sync_writes, distance, cf_round_trips,
mirror_round_trips), plain and with a quoted label column (the full CSV parser's path), runs the
installed `qmodel batch` on each as a user would (a process: start, parse, evaluate, write) and, in
the same run, a Python process that reads the file with csv.reader and writes every row back with
three extra cells with csv.writer. Prints both times (the best of three runs each, alternating), their
ratio and each process's peak memory (VmHWM, Linux). Both run with their bytecode cached, as an
installed package and the standard library have it (PYTHONDONTWRITEBYTECODE, which would make qmodel
compile its modules on every start, is dropped for the runs). Target (issue 22): ratio at most 1.5 for
both files.

    python bench/batch_throughput.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FORMULA = "transaction_elongation"
COLUMNS = ["cf_requests", "sync_writes", "distance", "cf_round_trips", "mirror_round_trips"]
# each process reports its peak resident memory on exit (after exec: none of the parent's)
PEAK = """
import atexit, sys
def _peak():
    with open("/proc/self/status") as status:
        sys.stderr.write(next((line for line in status if line.startswith("VmHWM")), ""))
atexit.register(_peak)
"""
QMODEL = PEAK + "from qmodel.cli import main\nsys.argv[0] = 'qmodel'\nmain()"  # what the qmodel script runs
# the baseline: read with the csv module, write back with three extra columns
CSV_MODULE = (
    PEAK
    + """
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8") as source, \\
        open(sys.argv[2], "w", newline="", encoding="utf-8") as target:
    rows, writer = csv.reader(source), csv.writer(target)
    writer.writerow(next(rows) + ["a", "b", "c"])
    writer.writerows(row + ["1.5", "2.5", ""] for row in rows)
"""
)


def write_input(path: Path, rows: int, quoted: bool = False) -> None:
    generator = np.random.default_rng(2026)
    columns = [
        generator.integers(0, 40, rows).astype(str),
        generator.integers(0, 12, rows).astype(str),
        np.round(generator.uniform(0, 200, rows), 1).astype(str),
        np.ones(rows, dtype=int).astype(str),
        np.ones(rows, dtype=int).astype(str),
    ]
    lines = [",".join(fields) for fields in zip(*columns, strict=True)]
    header = ",".join(COLUMNS)
    if quoted:  # a pass-through label with a comma inside: the full CSV parser's path
        header, lines = "label," + header, [f'"vol, {i}",{line}' for i, line in enumerate(lines)]
    path.write_text(header + "\n" + "\n".join(lines) + "\n", encoding="utf-8")


CACHED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MiB, 0 where unknown) of one run of ``command``."""
    start = time.perf_counter()
    done = subprocess.run(command, check=True, stderr=subprocess.PIPE, text=True, env=CACHED)
    elapsed = time.perf_counter() - start
    peak = re.search(r"VmHWM:\s*(\d+) kB", done.stderr)
    return elapsed, int(peak.group(1)) / 1024 if peak else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    print(f"formula {FORMULA} ({len(COLUMNS)} input columns), {rows:,} rows, end to end")
    with tempfile.TemporaryDirectory() as folder:  # bytecode written once, as an install does
        write_input(Path(folder, "in.csv"), 10)
        timed(
            [
                sys.executable,
                "-c",
                QMODEL,
                "batch",
                FORMULA,
                str(Path(folder, "in.csv")),
                "-o",
                str(Path(folder, "out.csv")),
            ]
        )
    for label, quoted in (("plain CSV", False), ("quoted label column", True)):
        with tempfile.TemporaryDirectory() as folder:
            source, target = Path(folder, "in.csv"), Path(folder, "out.csv")
            write_input(source, rows, quoted)
            runs = [
                (
                    timed([sys.executable, "-c", CSV_MODULE, str(source), str(target)]),
                    timed([sys.executable, "-c", QMODEL, "batch", FORMULA, str(source), "-o", str(target)]),
                )
                for _ in range(3)
            ]
            (baseline, baseline_memory), (elapsed, memory) = (min(times) for times in zip(*runs, strict=True))
            written = sum(1 for _ in target.open(encoding="utf-8")) - 1
        print(
            f"{label:20s} {written:,} rows: qmodel {elapsed:5.2f} s ({memory:,.0f} MiB), csv module "
            f"{baseline:5.2f} s ({baseline_memory:,.0f} MiB), ratio {elapsed / baseline:4.2f}"
        )
    print("target: ratio <= 1.5 for both")


if __name__ == "__main__":
    main()
