"""The study's printed numbers live in one place, its casebooks: the calibration reads its rows from there.

Two readings of the end-to-end casebook, the validation's (cases) and the calibration's
(:func:`qmodel.scenario.measurements.casebook_measurements`), give the same rows; and no printed number
the calibration rests on is written again in the calibration's code.
"""

from __future__ import annotations

import ast
import inspect

import pytest

from qmodel.scenario import calibrate
from qmodel.scenario.measurements import QUANTITIES, casebook_measurements, casebook_path
from qmodel.units import UNITS
from qmodel.validation.casebook import load_casebook

E2E = casebook_path("gdps-pprc-100km-2006-e2e")


def test_the_calibration_reads_every_scenario_cell_of_the_casebook_as_the_validation_does() -> None:
    cases = {
        case.id: case for case in load_casebook(E2E) if case.quantity.removeprefix("scenario.") in QUANTITIES
    }
    rows = {row.source: row for row in casebook_measurements(E2E)}
    assert set(rows) == set(cases)
    for name, case in cases.items():
        row, inputs = rows[name], case.inputs
        assert row.scenario == inputs["scenario"] and row.member == inputs["member"]
        assert row.distance == pytest.approx(float(str(inputs["distance"]).split()[0]) * 1e3)
        assert row.value == pytest.approx(case.paper[0] * UNITS[case.unit].to_si, rel=1e-12)
        assert row.subchannels == int(inputs.get("subchannels", 0))
        assert row.metro_mirror == inputs.get("metro_mirror", "")
        assert row.castout_owner == inputs.get("castout_owner", "")


def _printed_numbers() -> set[float]:
    """Every number the calibration's rows carry, as printed (ms, transactions, %, us), but powers of ten
    (a 100 ms response, a 0.1 ms IOSQ), which a scale or a tolerance may also be."""
    numbers = {row.value for row in calibrate.LOCK_ROWS + calibrate.PREDICTION_ROWS}
    for rows in calibrate.BASE_ROWS.values():
        numbers |= set(rows["base"].values()) | set(rows["transactions"].values())
    numbers.add(calibrate.BASE_ROWS["gdps-env3"]["cpu"][1])
    numbers |= {share for shares in calibrate.SHAPE_ROWS.values() for share in shares.values()}
    numbers |= {value for pair in calibrate.CASTOUT_ROWS for value in pair}
    numbers |= {value for series in calibrate.ROUND_TRIP_ROWS.values() for value in series}
    return {n for n in numbers if n and not float(f"{n:e}".split("e")[0]) == 1.0}


def _numbers(node: ast.AST) -> list[float]:
    return [
        float(n.value)
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)
    ]


def _digits(number: float) -> int:
    """Significant digits of a printed number: 3388 has 4, 12.3 three, 40 one."""
    return len(f"{number:.12g}".replace(".", "").replace("-", "").strip("0"))


def test_no_printed_number_of_the_calibration_rows_is_written_in_its_code() -> None:
    """Neither a table of printed numbers (a tuple, list, set or dict literal holding two or more of
    them: ``{20: 56, 40: 71}``, ``(205, 493)``) nor one printed number of three or more digits (12.3,
    3388) appears in the calibration's code; a lone 40 or 200 may be a distance or a step count."""
    tree = ast.parse(inspect.getsource(calibrate))
    printed = _printed_numbers()
    assert len(printed) > 50  # the rows are there: read from the casebooks
    tables = [node for node in ast.walk(tree) if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict))]
    copied = [ast.unparse(node) for node in tables if len(set(_numbers(node)) & printed) >= 2]
    assert not copied, copied
    lone = sorted({n for n in _numbers(tree) if n in printed and _digits(n) >= 3})
    assert not lone, lone
