"""The GDPS study's calibration tables (python -m qmodel.scenario.calibrate, docs/background/calibration.md)
print every number as a planner reads it, never in e-notation (trial 7 of issue 32, N10): a lockable_items
of 12,345 reads 12350, a model count of 14,890 reads 14890, not 1.234e+04 and 1.489e+04."""

from __future__ import annotations

import re

import numpy as np

from qmodel.scenario.calibrate import LOCK_ROWS, LockFit, parameter_table
from qmodel.scenario.spec import load_scenario

E_NOTATION = re.compile(r"\d[eE][+-]?\d")


def test_the_parameter_table_writes_large_values_out_in_full() -> None:
    fitted = {name: load_scenario(name) for name in ("gdps-env1", "gdps-env2", "gdps-env3")}
    fit = LockFit(
        ("lockable_items",),
        np.array([np.log(12345.0)]),  # fitted on its log scale
        np.array([[1e-4]]),
        np.zeros(len(LOCK_ROWS)),
        np.full(len(LOCK_ROWS), 14890.0),
        fitted["gdps-env3"],
    )
    table = parameter_table(fit, fitted)
    assert "| locks.lockable_items | 12350 | 12110 to 12590 (" in table
    assert f"| {LOCK_ROWS[0].label} | {LOCK_ROWS[0].value:g} | 14890 | +0.00 |" in table
    assert not E_NOTATION.search(table)
