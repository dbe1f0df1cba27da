"""Nothing injected (issue 33): a cell a spreadsheet would evaluate is written as text in every CSV qmodel
writes, numbers stay numbers; control and bidirectional characters are shown escaped on a terminal and
refused in names; an error line stays one readable line (qmodel/safetext.py)."""

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from qmodel.batch import run, run_batch
from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.output import print_table, render
from qmodel.safetext import FORMULA_STARTS, clipped, inert_cell, name_refused, shown
from qmodel.tables.workbook import write_workbook

HOSTILE = [
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    '=HYPERLINK("x")',
    "-",
    "+",
    "@",
    "=",
    "-A1",
]
NUMBERS = ["-2", "+3", "-1.5", "-1,5", "-1e-3", "+2E+5", "-5%", "-.5", "-1.234,5"]
SHIPPED = Path(__file__).parents[1] / "casebooks" / "scenarios"


def cli_run(*args, stdin=None):
    return CliRunner().invoke(cli, [str(arg) for arg in args], input=stdin)


def evaluated(cell: str) -> bool:
    """Whether a spreadsheet would take a CSV cell as a formula: it begins with one of = + - @ TAB CR and
    is not a number."""
    number = re.fullmatch(r"[+-]?[\d.,]*\d[\d.,]*([eE][+-]?\d+)?%?", cell)
    return cell.startswith(FORMULA_STARTS) and not number


@given(st.text(min_size=1, max_size=20))
def test_an_inert_cell_is_never_evaluated_and_keeps_its_text(text):
    cell = inert_cell(text)
    assert not evaluated(cell)
    assert cell in (text, "'" + text)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_number_of_any_sign_stays_as_it_is(value):
    assert inert_cell(repr(value)) == repr(value) and inert_cell(f"{value:.6g}") == f"{value:.6g}"


@pytest.mark.parametrize("number", NUMBERS)
def test_a_signed_number_in_a_decimal_mark_stays_a_number(number):
    assert inert_cell(number) == number


def csv_cells(text: str, delimiter: str = ",") -> list[str]:
    import csv

    return [cell for row in csv.reader(io.StringIO(text), delimiter=delimiter) for cell in row]


@pytest.mark.parametrize("delimiter", [",", ";"])
def test_batch_writes_no_cell_of_its_csv_a_spreadsheet_would_evaluate(delimiter):
    header = delimiter.join(["=HYPERLINK(1)", "arrival_rate", "service_time", "@note"])
    rows = [
        delimiter.join(
            [
                f'"{label}"' if delimiter in label or '"' in label else label,
                "800",
                "1",
                number.replace(",", ".") if delimiter == "," else number,
            ]
        )
        for label, number in zip(HOSTILE, NUMBERS * 2, strict=False)
    ]
    out = io.StringIO()
    run_batch("mm1", header + "\n" + "\n".join(rows) + "\n", out, io.StringIO())
    cells = csv_cells(out.getvalue(), delimiter)
    assert not [cell for cell in cells if evaluated(cell)]
    assert "'=HYPERLINK(1)" in cells and "'@note" in cells and "'-2+3" in cells
    assert all(number in cells for number in NUMBERS[:4] if delimiter == ";")  # numbers as they came


def test_workbook_text_written_as_csv_is_inert(tmp_path):
    book = tmp_path / "in.xlsx"
    write_workbook(
        str(book),
        [
            (
                "in",
                [
                    ["label", *HOSTILE],
                    ["arrival_rate", *[800.0] * len(HOSTILE)],
                    ["service_time", *[1.0] * len(HOSTILE)],
                ],
            )
        ],
    )
    result = cli_run("batch", "mm1", book)
    cells = csv_cells(result.output.split("mm1:")[0])
    assert result.exit_code == 0 and not [cell for cell in cells if evaluated(cell)]


def test_variants_write_their_labels_and_the_members_names_inert(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        (SHIPPED / "gdps-env2.toml").read_text(encoding="utf-8").replace('"G1P2"', '"=G1P2"'),
        encoding="utf-8",
    )
    variants = tmp_path / "v.csv"
    variants.write_text("label,distance\n=cmd|x,20km\n@SUM(1),30km\n-2,40km\n", encoding="utf-8")
    result = cli_run("scenario", scenario, "--variants", variants)
    cells = csv_cells(result.output)
    assert result.exit_code == 0, result.output
    assert not [cell for cell in cells if evaluated(cell)]
    assert "'=G1P2_response_time[ms]" in cells and "-2" in cells


def test_render_writes_text_cells_inert_and_numbers_as_numbers(capsys):
    render(["name", "value"], [["=1+1", -2.5], ["-", -3.0], ["ok", 1.0]], "csv")
    cells = csv_cells(capsys.readouterr().out)
    assert cells == ["name", "value", "'=1+1", "-2.5", "'-", "-3.0", "ok", "1.0"]


# ----- the terminal ----------------------------------------------------------------------------------

CONTROLS = ["\x1b[2J", "\x1b[31mred", "evil\u202etxt.exe", "nul\x00", "bell\x07", "\x9b31m", "a\u2066b"]


@pytest.mark.parametrize("name", CONTROLS)
def test_a_table_shows_control_characters_escaped(capsys, name):
    print_table(["name", "value"], [[name, 1.0]], title=name, width=80)
    out = capsys.readouterr().out
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", out)
    assert shown(name) in out


@given(st.text(max_size=40))
def test_shown_text_holds_no_control_character_and_reads_back_as_escapes(text):
    controls = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
    assert not re.search(controls, shown(text))


def test_an_error_line_escapes_controls_and_is_cut_to_a_readable_length():
    error = InputError("label\x1b[2J", "x" * 100_000 + "\x1b[31m", "a number")
    line = error.message()
    assert "\x1b" not in line and "\\x1b[2J" in line and len(line) < 300 and "100,005 characters" in line
    assert "\n" not in clipped("one\ntwo") and clipped("one\ntwo") == "one\\ntwo"


def test_a_cli_error_with_a_terminal_escape_in_its_value_is_shown_escaped():
    result = cli_run("calc", "mm1", "arrival_rate=\x1b[2J800", "service_time=1ms")
    assert result.exit_code == 2 and "\x1b" not in result.output and "\\x1b[2J" in result.output


@pytest.mark.parametrize("name", ["G1\x1b[2JP2", "G1\u202eP2", "G1\x00P2", "all", "ALL"])
def test_a_scenario_member_named_with_a_control_character_or_all_is_refused(tmp_path, name):
    assert name_refused(name, reserved=("all",))
    scenario = tmp_path / "s.toml"
    text = (SHIPPED / "gdps-env2.toml").read_text(encoding="utf-8")
    escaped = name.encode("unicode_escape").decode().replace("\\x", "\\u00")
    scenario.write_text(text.replace('name = "G1P2"', f'name = "{escaped}"'), encoding="utf-8")
    result = cli_run("scenario", scenario)
    assert result.exit_code == 2 and "member[2].name" in result.output and "\x1b" not in result.output
    assert result.output.count("\n") == 1


def test_a_dataframe_errors_are_the_cli_s(tmp_path):
    pandas = pytest.importorskip("pandas")
    with pytest.raises(InputError, match="given twice"):
        run("mm1", pandas.DataFrame([[800, 1, 2]], columns=["arrival_rate", "service_time", "service_time"]))
    with pytest.raises(InputError, match="not an input of mm1"):
        run("mm1", {"arrival_rate": [800], "service_time": [1]}, bogus=3)
    with pytest.raises(InputError, match="one value, not a column"):
        run("mm1", {"arrival_rate": 800, "service_time": 1})
    with pytest.raises(InputError, match=r"formula = None \(not an id\)"):
        run(None, {"arrival_rate": [800], "service_time": [1]})
    with pytest.raises(InputError, match="not one value"):
        run("mm1", {"arrival_rate": [800]}, service_time=[1, 2])
    with pytest.raises(InputError, match="mapping"):
        run("mm1", {"arrival_rate": [800], "x": [1]}, mapping={"x": 3})
    frame = run("mm1", {"arrival_rate": [800]}, service_time="1ms")  # a setting as the CLI reads it
    assert frame["utilization[ratio]"].tolist() == pytest.approx([0.8])
