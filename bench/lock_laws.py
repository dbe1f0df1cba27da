"""Lock-contention laws compared: each fitted on Environment 3 alone, judged on Environments 1 and 2.

Issue 25 asks for a law that explains Environment 3 and predicts Environment 2 with its parameters
fitted on Environment 3 alone. Each candidate below replaces the solver's lock wait
(:func:`qmodel.studies.locks.lock_wait`) for the length of its fit (the shipped code keeps one law: the
one this script finds predicts best); its [locks] parameters are fitted by
:func:`qmodel.scenario.calibrate.fit_locks` on LOCK_ROWS (16 rows of Environment 3), Environments 1 and 2
calibrated on their 0 km rows alone (:func:`calibrate_gdps`) and judged on PREDICTION_ROWS. Prints a
Markdown table (fit error on Environment 3; prediction error on Environments 1 and 2, RMS and largest, %;
``--max-distance`` per environment); with ``--docs`` writes it into docs/background/calibration.md
between its lock-laws markers. Takes about ten seconds per candidate:

    python bench/lock_laws.py [--docs]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import qmodel.scenario.compose as compose
from qmodel.scenario import calibrate
from qmodel.scenario.goal import max_distance
from qmodel.studies import locks

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "background" / "calibration.md"


def cross_member(requests, throughput, response, commit, items, round_trips, rtt, span=1.0, queued=0.0):
    """Only the other member's locks conflict: a member's own conflicts are resolved by its own lock
    manager at no distance cost (the study: global contention is what distance makes dear)."""
    if not np.isfinite(items):
        return np.zeros_like(response)
    mean_hold, residual_hold = locks.holding(response, commit, span, queued)
    held = throughput * requests[:, None] * mean_hold
    others = 1.0 - np.eye(len(requests))[:, :, None]
    residual = (residual_hold[:, None, :] + round_trips * rtt) * others
    return requests[:, None] * np.einsum("jd,jmd->md", held, residual) / items


def saturating(requests, throughput, response, commit, items, round_trips, rtt, span=1.0, queued=0.0):
    """Tay's law with a conflict probability that saturates: 1 − exp(−H/L) for H locks held, the wait
    per conflict the holders' mean residual weighted by what each holds."""
    if not np.isfinite(items):
        return np.zeros_like(response)
    mean_hold, residual_hold = locks.holding(response, commit, span, queued)
    held = throughput * requests[:, None] * mean_hold
    total = held.sum(axis=0)
    residual = residual_hold[:, None, :] + round_trips * rtt
    weighted = np.einsum("jd,jmd->md", held, residual)
    probability = -np.expm1(-total / items)
    return (
        requests[:, None]
        * probability
        * np.divide(weighted, total, out=np.zeros_like(weighted), where=total > 0)
    )


def held_through_the_queue(*arguments, queued=0.0, **keywords):
    """The shipped law before it took the execution net of the subchannel queue: locks held over it."""
    return locks.lock_wait(*arguments, **keywords)


# name: (lock wait, fitted parameters, start, fixed values)
CANDIDATES: dict[str, tuple[Callable, tuple[str, ...], tuple[float, ...], dict[str, float]]] = {
    "Tay + commit, whole execution net of the subchannel queue (shipped before cross-validation)": (
        locks.lock_wait,
        ("lockable_items",),
        (5000,),
        {"lock_span": 1.0},
    ),
    "Tay + commit, whole execution held through the subchannel queue": (
        held_through_the_queue,
        ("lockable_items",),
        (4000,),
        {"lock_span": 1.0},
    ),
    "Tay + commit, span fitted": (locks.lock_wait, ("lockable_items", "lock_span"), (2000, 0.5), {}),
    "Tay + commit, span 50% (declared; shipped: chosen by cross-validation)": (
        locks.lock_wait,
        ("lockable_items",),
        (2000,),
        {"lock_span": 0.5},
    ),
    "Tay + commit, span 25% (declared)": (locks.lock_wait, ("lockable_items",), (900,), {"lock_span": 0.25}),
    "Tay + commit, span 0: the commit alone (declared)": (
        locks.lock_wait,
        ("lockable_items",),
        (300,),
        {"lock_span": 0.0},
    ),
    "cross-member only, whole execution": (cross_member, ("lockable_items",), (2500,), {"lock_span": 1.0}),
    "cross-member only, span fitted": (cross_member, ("lockable_items", "lock_span"), (1000, 0.5), {}),
    "saturating, whole execution": (saturating, ("lockable_items",), (5000,), {"lock_span": 1.0}),
    "saturating, span fitted": (saturating, ("lockable_items", "lock_span"), (2000, 0.5), {}),
    "Tay + commit, span and resolution round trips fitted": (
        locks.lock_wait,
        ("lockable_items", "lock_span", "resolution_round_trips"),
        (2000, 0.5, 10),
        {},
    ),
    "cross-member only, span and resolution round trips fitted": (
        cross_member,
        ("lockable_items", "lock_span", "resolution_round_trips"),
        (800, 0.5, 100),
        {},
    ),
}


def compare(names: list[str]) -> list[list[str]]:
    rows = []
    for name in names:
        law, fitted_names, start, fixed = CANDIDATES[name]
        compose.lock_wait = law
        try:
            fit = calibrate.fit_locks(fitted_names, start=start, fixed=fixed)
            scenarios = calibrate.calibrate_gdps(fit)
            values = calibrate.predictions(scenarios)
            values_fitted = (fit.interval(i)[0] for i in range(len(fit.x)))
            cells = [
                name,
                ", ".join(
                    f"{n} {v:.4g}" if n != "lock_span" else f"{n} {v:.1%}"
                    for n, v in zip(fit.names, values_fitted, strict=True)
                ),
            ]
            cells.append("{:.1f} / {:.1f}".format(*calibrate.errors(calibrate.LOCK_ROWS, fit.values)))
            for env in ("gdps-env1", "gdps-env2"):
                picked = [i for i, row in enumerate(calibrate.PREDICTION_ROWS) if row.scenario == env]
                rows_here = tuple(calibrate.PREDICTION_ROWS[i] for i in picked)
                cells.append("{:.1f} / {:.1f}".format(*calibrate.errors(rows_here, values[picked])))
            for env in ("gdps-env1", "gdps-env2", "gdps-env3"):
                cells.append(f"{max_distance(scenarios[env]).distance / 1e3:.1f}")
        finally:
            compose.lock_wait = locks.lock_wait
        rows.append(cells)
        print(" | ".join(cells), file=sys.stderr)
    return rows


HEADER = (
    "law",
    "fitted on Env 3",
    "Env 3 fit RMS / max %",
    "Env 1 prediction RMS / max %",
    "Env 2 prediction RMS / max %",
    "Env 1 max km",
    "Env 2 max km",
    "Env 3 max km",
)


def table(rows: list[list[str]]) -> str:
    """A Markdown table of ``rows`` (cells in HEADER's order)."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in rows]) + "\n"


if __name__ == "__main__":
    chosen = [n for n in CANDIDATES if n in sys.argv[1:]] or list(CANDIDATES)
    rows = compare(chosen)
    text = table(rows)
    print(text)
    if "--docs" in sys.argv:
        calibrate.write_block(DOCS, "lock-laws", text)
