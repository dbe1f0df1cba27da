"""Benchmark: what `qmodel check` costs, to calibrate the estimate it refuses a long run by.

Measures in one process (CPU seconds, ``time.process_time``):

- a check's draws: every check of a sample of shipped entries (every ``--every``-th) and of the
  rank entry of tests/catalogue/data/ranks.toml, at two example counts; the slope is the cost of
  one example (``SECONDS_PER_EXAMPLE`` in qmodel/catalogue/checks.py), the intercept per check
  that of starting one (``SECONDS_PER_CHECK``);
- an entry's setup: its expressions parsed and the 50-digit references lambdified
  (``SECONDS_PER_ENTRY``) and the memory a checked entry keeps (``BYTES_PER_ENTRY``, from
  tracemalloc);
- a user file's first use: generated files of N and 4N small entries compiled into a scratch cache,
  per entry (``SECONDS_PER_ENTRY_COMPILE`` in qmodel/catalogue/user.py);
- the estimate against a run: ranks.toml's entry checked at 100 examples, its setup included.

Writes bench/figures/check_cost.json (docs/background/benchmarks.md quotes it).

Other helpers' load changes absolute times; the figures printed are what the constants rest on.

    python bench/check_cost.py [--every 10] [--entries 200]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import tracemalloc
from pathlib import Path

from timing import record

from qmodel.catalogue.checks import check_counts, check_entries, check_seconds
from qmodel.catalogue.loader import load_catalogue
from qmodel.catalogue.symbolic import SymbolicCatalogue
from qmodel.catalogue.user import forget_catalogues, symbolic_catalogue, use_catalogues

RANKS = Path(__file__).resolve().parent.parent / "tests" / "catalogue" / "data" / "ranks.toml"
SMALL_ENTRY = """[[formula]]
id = "rule_{i}"
title = "Rule {i}"
source = "generated"
[formula.symbols.load]
meaning = "load"
unit = "1/s"
domain = "(0, inf)"
[[formula.outputs]]
name = "scaled"
expr = "{i}*load"
unit = "1/s"
meaning = "scaled load"
[[formula.properties]]
kind = "increasing"
output = "scaled"
symbol = "load"
"""


def cpu(call) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def draws(every: int, low: int, high: int) -> tuple[float, float]:
    """Seconds of one example and of starting one check (the entries parsed before the timed runs)."""
    shipped = load_catalogue()
    sample = list(shipped.values())[::every]
    context = SymbolicCatalogue(shipped)
    ranks = use_catalogues([str(RANKS)])
    runs = [(sample, context), (list(ranks.values()), symbolic_catalogue(ranks))]
    checks = sum(sum(check_counts(formulas, ctx)) for formulas, ctx in runs)
    for formulas, ctx in runs:
        check_entries(formulas, ctx, 1, 0)
    at_low = sum(cpu(lambda f=f, c=c: check_entries(f, c, low, 0)) for f, c in runs)
    at_high = sum(cpu(lambda f=f, c=c: check_entries(f, c, high, 0)) for f, c in runs)
    per_example = (at_high - at_low) / ((high - low) * checks)
    per_check = at_low / checks - low * per_example
    print(
        f"draws: {len(sample) + 1} entries, {checks} checks: {at_low:.2f} s at {low} examples, "
        f"{at_high:.2f} s"
    )
    print(f"       at {high}: {per_example * 1e3:.2f} ms an example, {per_check * 1e3:.1f} ms a check")
    forget_catalogues()
    return per_example, per_check


def estimate_against_run(examples: int) -> tuple[float, float]:
    """ranks.toml's entry checked at ``examples``, parsed afresh: (estimated, measured) CPU seconds."""
    ranks = use_catalogues([str(RANKS)])
    formulas, context = list(ranks.values()), symbolic_catalogue(ranks)
    estimated = sum(check_seconds(count, examples) for count in check_counts(formulas, context))
    measured = cpu(lambda: check_entries(formulas, context, examples, 0))
    forget_catalogues()
    print(f"ranks.toml at {examples} examples: estimated {estimated:.2f} s, measured {measured:.2f} s")
    return estimated, measured


def setup(every: int, per_example: float, per_check: float) -> tuple[float, float]:
    """Seconds and memory of an entry's setup: a first check at 1 example, less its check's share."""
    shipped = load_catalogue()
    sample = list(shipped.values())[::every]
    tracemalloc.start()
    context = SymbolicCatalogue(shipped)
    seconds = cpu(lambda: check_entries(sample, context, 1, 0))
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    checks = sum(check_counts(sample, context))
    per_entry = (seconds - checks * (per_check + per_example)) / len(sample)
    print(
        f"setup: {len(sample)} entries parsed, lambdified and checked at 1 example in {seconds:.2f} s: "
        f"{per_entry * 1e3:.0f} ms an entry;"
    )
    print(f"       {kept / len(sample) / 1e3:.0f} KB kept an entry")
    return per_entry, kept / len(sample)


def compiling(entries: int) -> float:
    times = {}
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["XDG_CACHE_HOME"] = scratch
        for count in (entries, 4 * entries):
            path = Path(scratch) / f"rules{count}.toml"
            path.write_text("\n".join(SMALL_ENTRY.format(i=i + 1) for i in range(count)), encoding="utf-8")
            times[count] = cpu(lambda path=path: use_catalogues([str(path)]))
            forget_catalogues()
    per_entry = (times[4 * entries] - times[entries]) / (3 * entries)
    print(
        f"compile: {entries} entries {times[entries]:.2f} s, "
        f"{4 * entries} entries {times[4 * entries]:.2f} s: "
        f"{per_entry * 1e3:.2f} ms an entry"
    )
    return per_entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=10, help="check every N-th shipped entry")
    parser.add_argument("--entries", type=int, default=200, help="entries of the smaller generated file")
    options = parser.parse_args()
    estimated, measured = estimate_against_run(100)
    per_example, per_check = draws(options.every, 10, 50)
    per_entry, kept = setup(options.every, per_example, per_check)
    per_compile = compiling(options.entries)
    record(
        "check_cost",
        {
            "sample_every": options.every,
            "example_ms": per_example * 1e3,
            "check_ms": per_check * 1e3,
            "entry_ms": per_entry * 1e3,
            "entry_kb": kept / 1e3,
            "compile_ms": per_compile * 1e3,
            "ranks_estimated_s": estimated,
            "ranks_measured_s": measured,
        },
    )


if __name__ == "__main__":
    main()
