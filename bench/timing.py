"""What the benchmark scripts share: the quick answer they time, the wall time of one command run as a
user runs it (piped, or at a terminal), and the median time of an in-process call."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

QUICK = ["calc", "mm1", "arrival_rate=800", "service_time=1ms"]  # a quick answer at the terminal
# the 4-station example of docs/howto/mva.md (Bolch et al., Example 8.4)
MVA_EXAMPLE = [
    "mva",
    "--demand",
    "0.5,0.3,0.4,1",
    "--servers",
    "2,1,1,delay",
    "--names",
    "cpu,disk1,disk2,terminals",
    "--population",
    "1..3",
]


def installed_env() -> dict[str, str]:
    """The environment with bytecode written and read as in a normal install (pip compiles it at
    install): PYTHONDONTWRITEBYTECODE dropped, else every run compiles qmodel's source again."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def wall_time(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from start to exit of ``command`` (output discarded; a failure raises)."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def terminal_wall_time(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from start to exit of ``command`` writing to a terminal (a pseudo-terminal of 80 columns
    and 24 lines, read to the end as a terminal shows it; a failure raises)."""
    import fcntl
    import pty
    import struct
    import termios

    reader, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=terminal, stderr=subprocess.DEVNULL, env=env)
    os.close(terminal)
    with contextlib.suppress(OSError):  # the end of the output reads as an error on Linux
        while os.read(reader, 65536):
            pass
    status = process.wait()
    seconds = time.perf_counter() - start
    os.close(reader)
    if status:
        raise subprocess.CalledProcessError(status, command)
    return seconds


def median_time(call: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median seconds of ``call()`` over ``repeats`` runs after one warm-up run (imports, numba's
    compiled code), and the last run's value."""
    call()
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


FIGURES = Path(__file__).parent / "figures"  # each script's last figures, read by the docs at build time


def record(name: str, figures: dict) -> None:
    """Write a benchmark's figures to bench/figures/NAME.json with when and under what load they were
    measured (the docs quote them from there: docs/_hooks/benchmarks.py)."""
    FIGURES.mkdir(exist_ok=True)
    payload = {
        "measured": datetime.date.today().isoformat(),
        "load_average": os.getloadavg()[0],
        "cores": os.cpu_count(),
        "figures": figures,
    }
    text = json.dumps(payload, indent=1, default=float) + "\n"
    (FIGURES / f"{name}.json").write_text(text, encoding="utf-8")
