"""Input a planner mistypes is refused at once, in one line naming where it is and what is allowed, before
any solve (a planner's trial of issue 32, trial 4: D4–D7, D11–D13, D15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qmodel.errors import InputError
from qmodel.scenario.measurements import read_measurements


@pytest.mark.parametrize(
    ("cell", "decimal", "advice"),
    [
        ("97,1", ";", "97,1% or 0,971"),
        ("97.1", ",", "97.1% or 0.971"),
        ("120%", ",", "e.g. 95% or 0.95"),
    ],
)
def test_a_share_within_the_goal_above_1_is_refused_naming_the_row_as_the_files_share_is(
    tmp_path: Path, cell: str, decimal: str, advice: str
) -> None:
    table = tmp_path / "rows.csv"
    table.write_text(
        f"distance{decimal}member{decimal}quantity{decimal}value\n"
        f"0km{decimal}SYS1{decimal}share_within_goal{decimal}{cell}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as refused:
        read_measurements(str(table), "mine")
    said = str(refused.value)
    assert said.startswith(f"{table}: row 2, column value = {cell}") and advice in said
    assert "\n" not in said


def test_a_cpu_busy_in_cps_above_1_is_a_reading_not_a_share(tmp_path: Path) -> None:
    table = tmp_path / "rows.csv"
    table.write_text("distance,member,quantity,value\n0km,SYS1,cpu_of_one_cp,350%\n", encoding="utf-8")
    (row,) = read_measurements(str(table), "mine")
    assert row.value == pytest.approx(3.5)
