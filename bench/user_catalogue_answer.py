"""Benchmark: a quick answer from a user catalogue entry against one from a shipped entry.

Runs `qmodel calc` on a shipped entry (mm1) and on the rank-sizing user entry
of tests/catalogue/data/ranks.toml (`--catalogue`), interleaved, and prints the
medians and their ratio; also the one-off cost of the first use, which
compiles the file (sympy) into the cache. Target (issue 14): once compiled, a
user entry costs what a shipped one does (ratio about 1). The cache lives in a
scratch XDG_CACHE_HOME; bytecode is written as in a normal install (PYTHONDONTWRITEBYTECODE
is dropped for the runs).

    python bench/user_catalogue_answer.py [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from timing import QUICK, wall_time

RANKS = Path(__file__).resolve().parent.parent / "tests" / "catalogue" / "data" / "ranks.toml"
USER = ["calc", "rank_host_io", "read_share=70%", "--catalogue", str(RANKS)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    qmodel = shutil.which("qmodel") or sys.exit("qmodel is not on PATH: pip install . first")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        first = wall_time([qmodel, *USER], env)  # compiles the file into the cache
        wall_time([qmodel, *QUICK], env)  # warm the file cache
        shipped, user = [], []
        for _ in range(runs):
            shipped.append(wall_time([qmodel, *QUICK], env))
            user.append(wall_time([qmodel, *USER], env))
    shipped_ms, user_ms = statistics.median(shipped) * 1e3, statistics.median(user) * 1e3
    print(f"runs: {runs} each, interleaved; medians")
    print(f"shipped entry  qmodel {' '.join(QUICK)}: {shipped_ms:7.1f} ms")
    print(f"user entry     qmodel calc rank_host_io ... --catalogue ranks.toml: {user_ms:7.1f} ms")
    print(f"ratio          {user_ms / shipped_ms:.2f}  (target about 1)")
    print(f"first use of the file (parse, unit check, compile, cache): {first * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
