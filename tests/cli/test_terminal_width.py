"""Tables at 80 columns and piped: a number is never split across lines, no line is wider than the
terminal, and the layout gives way in order: fold columns, one record per block, truncate labels."""

import contextlib
import io
import json
import re

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.output import format_number, key_columns, print_table, terminal_width

COMMANDS = [
    ["calc", "mmc", "arrival_rate=35K", "service_time=150us", "servers=8"],
    ["sweep", "mmc", "arrival_rate=10K..50K", "--steps", "5", "service_time=150us", "servers=8"],
    [
        "sweep",
        "backend_load",
        "io_rate=50K..250K",
        "--steps",
        "9",
        "read_fraction=56.5%",
        "read_hit_ratio=95%",
        "destage_rate=10%",
        "drives=360",
    ],
    ["solve", "mmc", "response_time=0.16ms", "--for", "servers", "arrival_rate=35K", "service_time=150us"],
    ["subchannels", "--delayed", "31.1%"],
    [
        "mirror-timeline",
        "--write-rate",
        "250MB/s",
        "--bandwidth",
        "361MB/s",
        "--burst",
        "60GB",
        "--burst-rate",
        "1GB/s",
        "--burst-at",
        "9min",
    ],
    ["formula", "list"],
    [
        "mva",
        "--service-time",
        "0.125,0.3,0.2",
        "--visits",
        "16,10,5",
        "--think-time",
        "4",
        "--population",
        "1..20",
    ],
]


def run(args: list[str], columns: str | None = "80"):
    env = {"COLUMNS": columns} if columns else {"COLUMNS": ""}
    return CliRunner().invoke(cli, args, env=env)


def numbers_of_json(payload) -> set[str]:
    """Every number in a JSON payload as the table shows it."""
    if isinstance(payload, dict):
        return set().union(*map(numbers_of_json, payload.values())) if payload else set()
    if isinstance(payload, list):
        return set().union(*map(numbers_of_json, payload)) if payload else set()
    if isinstance(payload, (int, float)) and not isinstance(payload, bool):
        return {format_number(float(payload))}
    return set()


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args[:2]))
def test_no_table_line_is_wider_than_80_columns(args: list[str]) -> None:
    result = run(args)
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80


@pytest.mark.parametrize(
    "args", [a for a in COMMANDS if a[0] not in ("formula", "mva")], ids=lambda args: " ".join(args[:2])
)
def test_every_number_of_the_json_appears_whole_in_the_80_column_table(args: list[str]) -> None:
    table = run(args).output
    tokens = set(re.findall(r"[-+0-9.e]+", table))
    numbers = numbers_of_json(json.loads(run([*args, "--format", "json"]).output))
    missing = sorted(n for n in numbers if n not in tokens)
    assert not missing, (missing, table)


def test_piped_output_without_columns_uses_80_not_140(monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width() == 80  # pytest's streams are not terminals


def test_columns_sets_the_width() -> None:
    assert run(COMMANDS[1], columns="80").output.count("┏") == 2  # folded in two
    result = run(COMMANDS[1], columns="160")
    assert max(len(line) for line in result.output.splitlines()) <= 160
    assert result.output.count("┏") == 1  # one table: it fits in 160


def wide_rows():
    columns = ["arrival_rate [1/s]", *(f"output_number_{i} [ms]" for i in range(8))]
    rows = [[float(10_000 * (r + 1)), *(123456.789 + i for i in range(8))] for r in range(3)]
    return columns, rows


def printed(width: int, columns, rows) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print_table(columns, rows, title="wide", width=width)
    return buffer.getvalue()


def test_columns_that_do_not_fit_fold_into_further_tables_each_led_by_the_first() -> None:
    text = printed(80, *wide_rows())
    assert "(1 of " in text and "(2 of " in text
    assert text.count("arrival_rate") == text.count("┏")  # the label column leads each table
    assert "123457" in text and "30000" in text


def test_a_column_too_wide_to_fold_gives_one_record_per_block() -> None:
    text = printed(30, *wide_rows())
    assert "record 1:" in text and "record 3:" in text
    assert all(len(line) <= 30 for line in text.splitlines())
    assert text.count("123458") == 3  # each record shows its own copy of output_number_1


def test_labels_are_truncated_last_and_numbers_never() -> None:
    columns = ["a_label_much_longer_than_the_terminal_is_wide", "value"]
    text = printed(24, columns, [["x", 1234567.0]])
    assert "1234567" in text
    assert "…" in text


def test_minus_zero_is_shown_as_zero() -> None:
    assert format_number(-0.0) == "0"


def member_rows():
    """Rows identified by two columns, as a scenario prints them: three members per distance."""
    columns = ["distance [km]", "member", *(f"component_{i} [ms]" for i in range(8))]
    rows = [
        [float(distance), member, *(1000.25 + i + distance for i in range(8))]
        for distance in (0, 20, 40)
        for member in ("G1P1", "G1P2", "all")
    ]
    return columns, rows


def parts(text: str) -> list[str]:
    """The tables of a printed text, one string each (a table starts with its top rule)."""
    return text.split("┏")[1:]


def test_every_folded_part_repeats_the_columns_that_identify_a_row() -> None:
    text = printed(80, *member_rows())
    assert "(2 of " in text
    for part in parts(text):
        assert "distance" in part and "member" in part and part.count("G1P2") == 3, part


def test_a_first_column_that_tells_the_rows_apart_is_the_only_key() -> None:
    assert key_columns([["mmc", "M/M/c queue", "Jain"], ["mm1", "M/M/1 queue", "Jain"]]) == 1


def test_text_columns_after_the_first_are_keys_while_rows_share_the_first() -> None:
    assert key_columns(member_rows()[1]) == 2


def test_a_number_column_ends_the_keys() -> None:
    assert key_columns([[1.0, 5.0, "a"], [1.0, 6.0, "b"]]) == 1


def test_a_caller_can_declare_the_key_columns() -> None:
    columns, rows = wide_rows()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print_table(columns, rows, title="wide", width=80, keys=2)
    for part in parts(buffer.getvalue()):
        assert "output_number_0" in part, part


def test_key_columns_that_leave_no_room_for_another_column_give_one_record_per_block() -> None:
    columns, rows = member_rows()
    rows = [[row[0], f"member_with_a_long_name_{row[1]}", *row[2:]] for row in rows]
    text = printed(50, columns, rows)
    assert "record 9:" in text and "(1 of " not in text


def test_a_record_is_labelled_by_all_its_key_columns() -> None:
    text = printed(30, *member_rows())
    assert "record 2: distance [km] 0, member G1P2" in " ".join(text.split())


@pytest.mark.parametrize("width", [120, 80, 50, 30])
def test_no_number_of_a_table_with_two_key_columns_is_split_at_any_width(width: int) -> None:
    columns, rows = member_rows()
    text = printed(width, columns, rows)
    assert all(len(line) <= width for line in text.splitlines())
    assert set(re.findall(r"[0-9.]+", text)) >= {format_number(v) for row in rows for v in row[2:]}


@pytest.mark.parametrize("columns", ["80", "50", None], ids=["80", "50", "piped"])
def test_every_part_of_the_folded_scenario_tables_names_the_member(columns: str | None) -> None:
    result = run(["scenario", "gdps-env3", "--distance", "0km,20km"], columns=columns)
    assert result.exit_code == 0, result.output
    assert "(2 of " in result.output
    for part in parts(result.output)[:-1]:  # the last table, per path, has no members
        assert "member" in part and part.count("G1P2") == 2, part


def header_cells(text: str) -> list[str]:
    return [cell.strip() for line in text.splitlines() if "┃" in line for cell in line.split("┃")]


@pytest.mark.parametrize("columns", ["80", "60", "40"])
def test_a_header_never_puts_a_number_and_its_unit_on_two_lines(columns: str) -> None:
    # the delayed table's headers are distances ("100 km"); at 60 columns they folded as "100" / "km"
    result = run(["scenario", "gdps-env3", "--distance", "0..100km", "--points", "21"], columns=columns)
    assert result.exit_code == 0
    assert all(len(line) <= int(columns) for line in result.output.splitlines())
    assert not [cell for cell in header_cells(result.output) if re.fullmatch(r"[0-9.]+|km", cell)]
    assert "100 km" in header_cells(result.output)


def test_a_title_keeps_a_number_with_the_word_after_it() -> None:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print_table(
            ["distance [km]", "R [ms]"], [[20.0, 55.0]], title="response time here at 70 km", width=40
        )
    text = buffer.getvalue()
    assert "70 km" in text and "at 70 \n" not in text and "at 70\n" not in text


def test_a_header_longer_than_its_column_still_wraps_at_its_other_spaces() -> None:
    cells = header_cells(printed(30, ["member", "converted CF requests [/s]"], [["G1P2", 1.0]]))
    assert "converted CF" in cells
