"""Scenario solver speed: a sweep of 1,000 distances, and --max-distance as a whole process.

Targets (issue 15): a two-member scenario swept over 1,000 distances in ≤ 1 s; `qmodel scenario
FILE --max-distance` in ≤ 0.3 s whole process (start-up included). Issue 25: the same with the band
(the scenario solved again at each point of its [band], and each solve's share within the goal at the
goal time scaled by the model's own error): 1,000 distances with bands, their records included, in
≤ 1 s; --max-distance with its band in ≤ 0.5 s whole process; each beside the answer without a band
in the same run (the band's cost as a ratio). Each line says the target, the measured value and
whether it is met; a whole process is timed by the clock and by its CPU (user + system), which a
machine busy with other work inflates less, with its bytecode written and read as in a normal install
(timing.installed_env: an environment with PYTHONDONTWRITEBYTECODE set would compile every qmodel
module again in each run, about 0.24 s that an installed qmodel never pays), after one untimed run
that writes it; the scenarios' runs interleaved, so load from other work hits them alike. Also: long
sweeps cost time in proportion to their distances (the finite-source queue works in blocks of states,
so neither memory nor time per distance grows with the sweep); and a table of 1,000 distances, 647 of
them thrashing, whole process: its notes read the remedies from the solve, not from solves of their
own; and a sweep with IOSQ computed from the load (the disk queue balanced inside each evaluation).
Run with qmodel installed:

    python bench/scenario_speed.py [--band | --max-distance | --measured-at]
    # --band: the band's lines alone; --max-distance: its whole processes alone; --measured-at: a solve
    # of a file whose times were read at a distance beside the same read at 0 km
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from timing import installed_env, median_time, wall_time

from qmodel.scenario import load_scenario, solve_scenario
from qmodel.scenario.band import load_banded, solve_banded
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.predictive import ModelError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_hooks"))
import pagework  # noqa: E402  (the docs' own reader of a page's files: one home for it)

REPEATS = 5


def sweep(name: str, points: int = 1000, repeats: int = REPEATS, **changes) -> tuple[float, bool]:
    scenario = replace(load_scenario(resolve_scenario(name)), **changes)
    distances = np.linspace(0, 100e3, points)
    seconds, result = median_time(lambda: solve_scenario(scenario, distances), repeats)
    return seconds, bool(result.thrashing.any())


def banded_sweep(name: str, points: int = 1000, repeats: int = REPEATS) -> tuple[float, float, float, int]:
    """Median seconds of 1,000 distances solved with the band, records (the rows CSV and JSON write)
    included, by the clock and by this process's CPU; the same without the band (its points dropped),
    by the clock; and the band's points."""
    banded = load_banded(resolve_scenario(name))
    distances = np.linspace(0, 100e3, points)
    with_band, _ = median_time(lambda: solve_banded(banded, distances).records(), repeats)
    cpu = []
    for _ in range(repeats):
        start = time.process_time()
        solve_banded(banded, distances).records()
        cpu.append(time.process_time() - start)
    alone = banded._replace(points=(), weights=(), error=ModelError())
    without, _ = median_time(lambda: solve_banded(alone, distances).records(), repeats)
    return with_band, statistics.median(cpu), without, len(banded.points)


def whole_process(arguments: list[str]) -> tuple[float, float]:
    """Median seconds of the whole process, by the clock and by its CPU (user + system), bytecode cached."""
    return whole_processes([arguments])[0]


def whole_processes(commands: list[list[str]]) -> list[tuple[float, float]]:
    """Per command (qmodel's arguments), the median seconds of the whole process by the clock and by its
    CPU (user + system), as an installed qmodel runs (bytecode written by one untimed run first, then
    read), the commands' runs interleaved."""
    env = installed_env()
    runs = [
        [sys.executable, "-c", "from qmodel.cli import main; main()", *arguments] for arguments in commands
    ]
    for command in runs:
        wall_time(command, env)  # writes the bytecode (and warms the file cache)
    clock: list[list[float]] = [[] for _ in runs]
    cpu: list[list[float]] = [[] for _ in runs]
    for _ in range(REPEATS):
        for command, clocked, used in zip(runs, clock, cpu, strict=True):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            clocked.append(wall_time(command, env))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return [(statistics.median(c), statistics.median(u)) for c, u in zip(clock, cpu, strict=True)]


def verdict(seconds: float, target: float) -> str:
    """The target and whether ``seconds`` meets it."""
    return f"target ≤ {target * 1e3:.0f} ms: {'met' if seconds <= target else 'MISSED'}"


def thrashing_table(repeats: int = 3) -> float:
    """Median seconds of the whole process drawing Environment 3's table over 0..300 km, 1,000 distances
    (exit status 1: some thrash), output discarded."""
    command = [
        sys.executable,
        "-c",
        "from qmodel.cli import main; main()",
        "scenario",
        "gdps-env3",
        "--distance",
        "0..300km",
        "--points",
        "1000",
    ]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        status = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        times.append(time.perf_counter() - start)
        assert status == 1, f"expected exit status 1 (thrashing), got {status}"
    return statistics.median(times)


def band_lines() -> None:
    """The band's targets (issue 32): 1,000 distances with their band ≤ 1 s, --max-distance with its band
    ≤ 0.5 s whole process; Environment 1 has the most parameter points (its castout owner's too)."""
    for name in ("gdps-env1", "gdps-env2", "gdps-env3"):
        with_band, cpu, without, points = banded_sweep(name)
        print(
            f"{name}: 1,000 distances with the band ({points} points), records included: "
            f"{with_band * 1e3:.0f} ms by the clock ({verdict(with_band, 1.0)}), {cpu * 1e3:.0f} ms CPU"
            f" ({verdict(cpu, 1.0)}); without it {without * 1e3:.0f} ms (ratio {with_band / without:.2f})"
        )
    max_distance_lines()


def own_sysplex(work: Path) -> Path:
    """The docs' own-sysplex worked example (docs/howto/own-sysplex.md: a planner's two-site file with a
    measured lock wait), written to ``work`` from the page as its example tests write it, and calibrated
    on the page's measured.csv as the page does: a planner's file with its band points."""
    page = ROOT / "docs" / "howto" / "own-sysplex.md"
    for name, text in pagework.page_files(pagework.parse(page.read_text().splitlines())).items():
        (work / name).write_text(text)
    scenario = work / "my-sysplex.toml"
    calibrate = ["scenario", "calibrate", str(scenario), str(work / "measured.csv")]
    subprocess.run(
        [sys.executable, "-c", "from qmodel.cli import main; main()", *calibrate],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return scenario


def max_distance_lines() -> None:
    """--max-distance with its band ≤ 0.5 s whole process (issue 32), on the study's three environments,
    today's Environment 3 and the docs' own-sysplex file calibrated (:func:`own_sysplex`), with the
    machine's load."""
    with tempfile.TemporaryDirectory() as work:
        names = ("gdps-env1", "gdps-env2", "gdps-env3", "today-env3", str(own_sysplex(Path(work))))
        timed = whole_processes([["scenario", name, "--max-distance"] for name in names])
    print(f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    for name, (clock, cpu) in zip(names, timed, strict=True):
        name = Path(name).name if name.endswith(".toml") else name
        print(
            f"qmodel scenario {name} --max-distance, with its band, whole process: {clock * 1e3:.0f} ms"
            f" by the clock ({verdict(clock, 0.5)}), {cpu * 1e3:.0f} ms CPU ({verdict(cpu, 0.5)})"
        )


def measured_at_lines(rounds: int = 5) -> None:
    """One solve at one distance (what a goal seek, a band point or a fit trial repeats) of gdps-env2 as
    read at 0 km and as read 1 m apart (measured_at: its RMF times taken to 0 km in every solve), in
    interleaved rounds; the cost of the times read at a distance as a ratio."""
    scenario = load_scenario(resolve_scenario("gdps-env2"))
    apart = replace(scenario, measured_at=1.0)  # 1 m: every time stays above what the metre adds
    distance = np.array([40e3])
    times: dict[str, list[float]] = {"0 km": [], "1 m": []}
    for _ in range(rounds):
        for label, each in (("0 km", scenario), ("1 m", apart)):
            times[label].append(median_time(lambda each=each: solve_scenario(each, distance), REPEATS)[0])
    at_zero, at_one = min(times["0 km"]), min(times["1 m"])
    print(
        f"gdps-env2, one solve at 40 km: {at_zero * 1e3:.1f} ms read at 0 km, {at_one * 1e3:.1f} ms read "
        f"1 m apart (measured_at; ratio {at_one / at_zero:.2f})"
    )


def main() -> None:
    if "--band" in sys.argv[1:]:  # the band's lines alone
        band_lines()
        return
    if "--max-distance" in sys.argv[1:]:  # the whole processes of --max-distance alone
        max_distance_lines()
        return
    if "--measured-at" in sys.argv[1:]:  # the cost of times read at a distance alone
        measured_at_lines()
        return
    for name in ("gdps-env2", "gdps-env3"):
        seconds, thrashing = sweep(name)
        note = " (some distances thrash: their thrashing load is searched too)" if thrashing else ""
        print(f"{name}: 1,000 distances in {seconds * 1e3:.0f} ms ({verdict(seconds, 1.0)}){note}")
    # IOSQ computed from the load (volumes given) is balanced by bisection inside every evaluation
    env2 = load_scenario(resolve_scenario("gdps-env2"))
    seconds, _ = sweep(
        "gdps-env2",
        volumes=4,
        aliases=0,
        disk_background=1000.0,
        read=replace(env2.read, iosq=0.0),
        write=replace(env2.write, iosq=0.0),
    )
    print(f"gdps-env2 with 4 volumes, IOSQ from the load: 1,000 distances in {seconds * 1e3:.0f} ms")
    for points in (5_000, 20_000):  # the longer within the 10 s limit (limits.TIME_LIMIT)
        seconds, _ = sweep("gdps-env3", points, repeats=1)
        per_distance = seconds / points * 1e3
        print(f"gdps-env3: {points:,} distances in {seconds:.1f} s ({per_distance:.2f} ms per distance)")
    band_lines()
    seconds = thrashing_table()
    print(f"qmodel scenario gdps-env3 --distance 0..300km --points 1000: {seconds:.1f} s, whole process")
    clock, cpu = whole_process(["--version"])
    print(
        f"(qmodel --version, the start-up floor: {clock * 1e3:.0f} ms by the clock, {cpu * 1e3:.0f} ms CPU)"
    )


if __name__ == "__main__":
    main()
