"""``qmodel scenario calibrate`` speed: a planner's file fitted on 50 measured rows, whole process.

Target (issue 32 §2): 50 rows in ≤ 5 s. The rows are Environment 2's model at known values
(lockable_items 3,000, each member's other and think time as the file has them) with a fixed 2%
multiplicative scatter, at 10 distances from 0 to 100 km: both members' response time and transaction
count and the members' average response (50 rows); the fit frees five parameters (lockable_items, each
member's other and think time) and starts from the file's values. Timed by the clock and by the CPU of
the process (user + system), which a machine busy with other work inflates less; also says whether the
fit found the known lockable_items within its interval. Run with qmodel installed:

    python bench/scenario_calibrate.py
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.fit import model_values
from qmodel.scenario.measurements import Measurement
from qmodel.scenario.spec import load_scenario

TARGET = 5.0  # s, whole process
KM = (0, 10, 20, 30, 40, 50, 60, 70, 80, 100)
TRUE_ITEMS = 3000.0
FREE = ["locks.lockable_items", "member.*.other", "member.*.think_time"]


def rows() -> list[Measurement]:
    members = [(m, q) for m in ("G1P1", "G1P2") for q in ("response_time", "transactions")]
    wanted = [Measurement("mine", m, km * 1e3, q, 1.0) for km in KM for m, q in members]
    wanted += [Measurement("mine", "all", km * 1e3, "response_time", 1.0) for km in KM]
    truth = replace(load_scenario("gdps-env2"), lockable_items=TRUE_ITEMS)
    values = model_values(truth, wanted) * (1 + 0.02 * np.random.default_rng(7).standard_normal(len(wanted)))
    return [replace(row, value=float(value)) for row, value in zip(wanted, values, strict=True)]


def main() -> None:
    measured = rows()
    with tempfile.TemporaryDirectory() as folder:
        text = resolve_scenario("gdps-env2").read_text(encoding="utf-8")
        scenario = Path(folder) / "mine.toml"
        scenario.write_text(f"free = {json.dumps(FREE)}\n" + text, encoding="utf-8")
        table = Path(folder) / "measured.csv"
        lines = ["distance,member,quantity,value"]
        for row in measured:
            value = f"{row.value * 1e3:.6g}ms" if row.quantity == "response_time" else f"{row.value:.6g}"
            lines.append(f"{row.km:g}km,{row.member},{row.quantity},{value}")
        table.write_text("\n".join(lines) + "\n", encoding="utf-8")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        command = ["qmodel", "scenario", "calibrate", str(scenario), str(table), "--format", "json"]
        done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=folder)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    fitted = {p["key"]: p for p in json.loads(done.stdout)["parameters"]}["locks.lockable_items"]
    inside = fitted["low"] <= TRUE_ITEMS <= fitted["high"]
    verdict = "met" if cpu <= TARGET else "MISSED"
    print(
        f"qmodel scenario calibrate, {len(measured)} rows, {len(FREE)} keys (5 parameters): "
        f"{wall:.2f} s wall, {cpu:.2f} s CPU (target <= {TARGET:g} s: {verdict})"
    )
    print(
        f"lockable_items {fitted['value']:.0f} ({fitted['low']:.0f} to {fitted['high']:.0f}), true "
        f"{TRUE_ITEMS:.0f}: {'inside' if inside else 'OUTSIDE'} its interval"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
