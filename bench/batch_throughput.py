"""Benchmark: `qmodel batch` on a 1,000,000-row CSV of a 5-input formula, end to end, against the
standard library's csv module doing the least a batch must: read the file and write it back with three
extra columns.

Writes a CSV of transaction_elongation inputs (cf_requests, sync_writes, distance, cf_round_trips,
mirror_round_trips), plain and with a quoted label column (the full CSV parser's path), runs the
installed `qmodel batch` on each as a user would (a process: start, parse, evaluate, write) and, in
the same run, a Python process that reads the file with csv.reader and writes every row back with
three extra cells with csv.writer. Prints both times and their ratio. Target (issue 22): ratio at
most 1.5 for both files.

    python bench/batch_throughput.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FORMULA = "transaction_elongation"
COLUMNS = ["cf_requests", "sync_writes", "distance", "cf_round_trips", "mirror_round_trips"]
# the baseline: read with the csv module, write back with three extra columns
CSV_MODULE = """
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8") as source, \\
        open(sys.argv[2], "w", newline="", encoding="utf-8") as target:
    rows, writer = csv.reader(source), csv.writer(target)
    writer.writerow(next(rows) + ["a", "b", "c"])
    writer.writerows(row + ["1.5", "2.5", ""] for row in rows)
"""


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


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    qmodel = shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    print(f"formula {FORMULA} ({len(COLUMNS)} input columns), {rows:,} rows, end to end")
    for label, quoted in (("plain CSV", False), ("quoted label column", True)):
        with tempfile.TemporaryDirectory() as folder:
            source, target = Path(folder, "in.csv"), Path(folder, "out.csv")
            write_input(source, rows, quoted)
            baseline = min(timed([sys.executable, "-c", CSV_MODULE, str(source), str(target)])
                           for _ in range(2))
            elapsed = min(timed([qmodel, "batch", FORMULA, str(source), "-o", str(target)]) for _ in range(2))
            written = sum(1 for _ in target.open(encoding="utf-8")) - 1
        print(f"{label:20s} {written:,} rows: qmodel {elapsed:5.2f} s, csv module {baseline:5.2f} s, "
              f"ratio {elapsed / baseline:4.2f}")
    print("target: ratio <= 1.5 for both")


if __name__ == "__main__":
    main()
