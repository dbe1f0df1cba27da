"""The command line runs numpy's BLAS on one thread unless told otherwise: its arrays are small, and
threads cost more to start and join than they save (qmodel.cli.main, bench/scenario_speed.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from qmodel.cli import BLAS_THREADS

SHOW = (
    "import os, sys; sys.argv = ['qmodel', '--version']; import qmodel.cli as cli\n"
    "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
    "import numpy\n"
    "sys.stderr.write(' '.join(os.environ[v] for v in cli.BLAS_THREADS))\n"
)


def _threads(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, check=True)
    return done.stderr.strip()


def test_one_blas_thread_unless_the_user_says_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    assert _threads(env) == "1 1 1"
    assert _threads({**env, "OPENBLAS_NUM_THREADS": "4"}).split()[0] == "4"
