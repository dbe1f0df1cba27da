"""Benchmark: `qmodel batch` on a 100,000-row .xlsx, end to end, against python-calamine alone loading
the same workbook.

Writes an .xlsx of transaction_elongation inputs (five number columns and a text label), then in one
run times three processes: Python loading the sheet with python-calamine (the baseline: the least any
workbook batch must do), `qmodel batch` writing CSV, and `qmodel batch -o OUT.xlsx`. Prints the times
and the ratios to the baseline. Target (issue 26): the batch at most 2x the baseline.

    python bench/workbook_batch.py [--rows 100000]
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

from qmodel.tables.workbook import write_workbook

FORMULA = "transaction_elongation"
COLUMNS = ["label", "cf_requests", "sync_writes", "distance [km]", "cf_round_trips", "mirror_round_trips"]
LOAD = """
import sys, python_calamine
book = python_calamine.CalamineWorkbook.from_path(sys.argv[1])
rows = book.get_sheet_by_index(0).to_python()
"""


def write_input(path: Path, rows: int) -> None:
    generator = np.random.default_rng(2026)
    columns = [
        [f"volume {i}" for i in range(rows)],
        generator.integers(0, 40, rows).tolist(),
        generator.integers(0, 12, rows).tolist(),
        np.round(generator.uniform(0, 200, rows), 1).tolist(),
        [1] * rows,
        [2] * rows,
    ]
    sheet = [[title, *cells] for title, cells in zip(COLUMNS, columns, strict=True)]
    write_workbook(str(path), [("Sites", sheet)])


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    rows = parser.parse_args().rows
    qmodel = shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder, "in.xlsx")
        write_input(source, rows)
        print(f"formula {FORMULA}, {rows:,} rows, {source.stat().st_size / 1e6:.1f} MB .xlsx, end to end")
        baseline = min(timed([sys.executable, "-c", LOAD, str(source)]) for _ in range(3))
        print(f"{'calamine load alone':28s} {baseline:5.2f} s")
        for label, target in (
            ("qmodel batch -o OUT.csv", "out.csv"),
            ("qmodel batch -o OUT.xlsx", "out.xlsx"),
        ):
            elapsed = min(
                timed([qmodel, "batch", FORMULA, str(source), "-o", str(Path(folder, target))])
                for _ in range(3)
            )
            print(f"{label:28s} {elapsed:5.2f} s  ratio {elapsed / baseline:4.2f}")
    print("target: ratio <= 2")


if __name__ == "__main__":
    main()
