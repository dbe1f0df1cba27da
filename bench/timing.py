"""What the benchmark scripts share: the wall time of one command run as a user runs it."""

from __future__ import annotations

import subprocess
import time


def wall_time(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from start to exit of ``command`` (output discarded; a failure raises)."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start
