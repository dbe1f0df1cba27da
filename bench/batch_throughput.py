"""Benchmark: `qmodel batch` on a 1,000,000-row CSV of a 5-input formula, end to end.

Writes a CSV of transaction_elongation inputs (cf_requests, sync_writes,
distance, cf_round_trips, mirror_round_trips), runs the installed `qmodel batch`
on it as a user would (parse, evaluate, write) and prints wall time and rows
per second. Target (issue 2): 1,000,000 rows in at most 5 s.

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


def run(qmodel: str, rows: int, quoted: bool) -> tuple[float, int, float]:
    """(seconds, rows written, input MB) for one end-to-end batch run."""
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder, "in.csv"), Path(folder, "out.csv")
        write_input(source, rows, quoted)
        start = time.perf_counter()
        subprocess.run([qmodel, "batch", FORMULA, str(source), "-o", str(target)], check=True,
                       stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        written = sum(1 for _ in target.open(encoding="utf-8")) - 1
        return elapsed, written, source.stat().st_size / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    qmodel = shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    print(f"formula {FORMULA} ({len(COLUMNS)} input columns), {rows:,} rows, end to end")
    for label, quoted in (("plain CSV", False), ("quoted label column", True)):
        elapsed, written, size_mb = run(qmodel, rows, quoted)
        print(f"{label:20s} {size_mb:5.1f} MB in, {written:,} rows out: {elapsed:5.2f} s, "
              f"{rows / elapsed:,.0f} rows/s")
    print("target: 1,000,000 rows of plain CSV in <= 5 s")


if __name__ == "__main__":
    main()
