"""Benchmark: peak memory of `qmodel batch` on long tables, and the .xlsx it writes against a
python-calamine read of the same rows.

1. A 13,000,000-row CSV of transaction_elongation inputs (about 187 MB, which the 200 MB input cap
   admits) through `qmodel batch ... -o OUT.csv`: the process's peak resident memory (VmHWM, Linux).
   Target (issue 37): under 1 GB, whatever the row count (the rows are worked on a chunk at a time).
2. A 1,000,000-row CSV through `qmodel batch ... -o OUT.xlsx`: peak memory (target: under 500 MB),
   and in the same run, in alternating rounds, the time of that batch against a Python process that
   reads the .xlsx it wrote with python-calamine (the sheet as Python rows): their ratio (target: at
   most 2; the batch also reads, computes and writes the CSV it was given).

Times are wall-clock on a shared machine: the ratio, measured in one run, is the figure.

    python bench/batch_memory.py [--rows 13000000] [--xlsx-rows 1000000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from batch_throughput import CACHED, FORMULA, PEAK, QMODEL, write_input

READ = (
    PEAK
    + """
import python_calamine
book = python_calamine.CalamineWorkbook.from_path(sys.argv[1])
rows = book.get_sheet_by_index(0).to_python()
"""
)


def run(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MiB) of one run of ``command``."""
    start = time.perf_counter()
    done = subprocess.run(
        command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=CACHED
    )
    elapsed = time.perf_counter() - start
    peak = re.search(r"VmHWM:\s*(\d+) kB", done.stderr)
    return elapsed, int(peak.group(1)) / 1024 if peak else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=13_000_000)
    parser.add_argument("--xlsx-rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder, "in.csv"), Path(folder, "out.csv")
        write_input(source, args.rows)
        size = source.stat().st_size
        elapsed, peak = run([sys.executable, "-c", QMODEL, "batch", FORMULA, str(source), "-o", str(target)])
        print(
            f"CSV  {args.rows:,} rows ({size / 1e6:.0f} MB) -> CSV: {elapsed:6.1f} s, peak {peak:,.0f} MiB "
            "(target: under 1 GB)"
        )
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder, "in.csv"), Path(folder, "out.xlsx")
        write_input(source, args.xlsx_rows)
        rounds = []
        for _ in range(args.rounds):
            batch = run([sys.executable, "-c", QMODEL, "batch", FORMULA, str(source), "-o", str(target)])
            read = run([sys.executable, "-c", READ, str(target)])
            rounds.append((batch, read))
        (written, peak), (baseline, read_peak) = (min(runs) for runs in zip(*rounds, strict=True))
        ratios = [batch[0] / read[0] for batch, read in rounds]
        peak = max(batch[1] for batch, _ in rounds)
        print(
            f"CSV  {args.xlsx_rows:,} rows -> .xlsx ({target.stat().st_size / 1e6:.0f} MB): "
            f"{written:5.2f} s, peak {peak:,.0f} MiB (target: under 500 MB)"
        )
        print(
            f"calamine read of that .xlsx: {baseline:5.2f} s ({read_peak:,.0f} MiB); "
            f"ratio per round {', '.join(f'{ratio:.2f}' for ratio in ratios)}, best {min(ratios):.2f} "
            "(target: at most 2)"
        )


if __name__ == "__main__":
    main()
