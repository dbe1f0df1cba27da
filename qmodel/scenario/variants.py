"""What-if variants of a scenario from a CSV file or a workbook: one row per variant, columns overriding
scenario keys.

A column named ``distance`` or written as a dotted key overrides that key of the scenario file:

    distance [km]           member.G1P2.terminals    member.*.think_time[s]   path.*.subchannels
    path.G1P2.CF1.background_rate   locks.lockable_items   conversion.threshold (us)   goal.share

Headers are read as people write them: case is ignored (``Member.G1P2.Terminals``,
``Distance (km)``) and a unit in () or [] applies to the column's bare numbers. Without a unit
in the header a bare number is refused where the key needs one (``40`` in a distance column: km
or miles?), with the form to write in the file's own decimal mark (``8,8s``). ``*`` is every
member or path; a path may be written as qmodel's messages write it (``path.G1P2→CF1.subchannels``).
A dotted header that names nothing the scenario has, or is no key at all (``conversion.threshold/us``),
is one error for the file, before any row runs; other headers (no dot) pass through.

Each row is checked like a scenario file, its errors naming the CSV file, the row and the column;
rows that differ only in distance are solved together. The output is each input row with, per
member and for all, response time, share within the goal, throughput and CPU busy appended, in
the input's CSV dialect (separator, decimal mark, BOM, line ends; see :mod:`qmodel.tables`). A workbook
(.xlsx, .xlsm, .ods, .xls) is read from its first sheet or ``--sheet``, numbers as numbers, rows
numbered as the spreadsheet shows them; ``-o OUT.xlsx`` writes a workbook as ``batch`` does.
"""

from __future__ import annotations

import copy
import io
import itertools
import re
import sys
from pathlib import Path
from typing import TextIO

import numpy as np

from qmodel.errors import HeaderError, InputError
from qmodel.limits import refuse_scenario_work
from qmodel.outfile import claim_output
from qmodel.output import count_in_all
from qmodel.scenario.compose import solve_scenario
from qmodel.scenario.fit import with_inferred_locks
from qmodel.scenario.overrides import KEY_FORMS, Column, apply_override, first_refused, override_column
from qmodel.scenario.result import OPEN_SATURATED, OPEN_WAY_OUT, THRASHING, VOLUMES_WAY_OUT
from qmodel.scenario.spec import (
    FILE_DISTANCES,
    Scenario,
    ScenarioError,
    read_scenario_toml,
    scenario_from_dict,
)
from qmodel.tables import workbook
from qmodel.tables.csvsource import read_csv_file, read_table
from qmodel.tables.dialect import Dialect, locale_number, quote_cell
from qmodel.tables.files import other_sheets_named, read_sheet_table, write_csv_file, write_table_workbook
from qmodel.tables.table import holding_a_table, inert_header, refuse_no_rows, shortened_error
from qmodel.units import bare_number, decimal_comma, with_unit

# a cell holds one distance, where the file may hold a list or a range
CELL_DISTANCE = "one distance with its unit, e.g. 70km"
_MOST_DIGITS = 18  # a whole-number cell: more digits than any count of terminals, items or subchannels
# the scenario's records' keys (qmodel.frames.key), each written MEMBER_KEY: G1P1_response_time[ms]
RESULT_COLUMNS = ("response_time[ms]", "share_within_goal[%]", "throughput[1/s]", "cpu_busy_of_lpar[%]")


def _overlapping(columns: list[Column]) -> tuple[Column, Column] | None:
    """Two of a row's set columns that set the same key for the same member or path (``member.*.terminals``
    and ``member.G1P1.terminals``), or None: one would silently win over the other."""
    for first, second in itertools.combinations(columns, 2):
        if (
            len(first.key) == len(second.key)
            and first.key[-1] == second.key[-1]
            and all("*" in (a, b) or a == b for a, b in zip(first.key[1:-1], second.key[1:-1], strict=True))
        ):
            return first, second
    return None


def _cell_value(cell: str, column: Column, dialect: Dialect) -> object:
    """A cell as the scenario file would hold it: a whole number, a number, or text with its unit.

    The header's unit applies to a bare number. A distance stays text, read as the file's
    ``distance`` is (:func:`qmodel.scenario.spec.parse_distances`).
    """
    text = locale_number(column.name, cell, dialect) if dialect.decimal == "," else cell.strip()
    number = bare_number(text)
    if column.unit is not None and number is not None:
        return with_unit(text, column.unit)
    if column.key == ("distance",):
        return text
    if number is not None and number.lstrip("+-").isdigit():
        if len(number) > _MOST_DIGITS:  # no count is this large; int() of 4,300 digits raises
            raise InputError(
                column.name,
                text,
                f"a whole number of at most {_MOST_DIGITS} digits",
                reason=f"{len(number):,} digits",
            )
        return int(number)
    try:
        return float(text)  # inf too (locks.lockable_items)
    except ValueError:
        return text


def _cell_error(error: ScenarioError, column: Column, cell: str, dialect: Dialect) -> InputError:
    """A scenario error caused by one cell, named by the column (and the key it set, where that reads
    otherwise: ``path G1P2→CF1.subchannels``); the value as the cell has it, the advice in the file's
    decimal mark (``8,8s``, ``1,3% or 0,013`` in a decimal-comma file). A cell holds one distance, so in
    a decimal-point file a list a decimal comma would make one (``0,5km``) is advised as that one."""
    parameter = f"column {column.title}"
    if error.key.lower().replace(" ", ".").replace("→", ".") != column.name.lower():
        parameter += f" ({error.key})"
    reading = decimal_comma(cell) if column.key == ("distance",) and dialect.decimal == "." else None
    if reading is not None:  # 0,5km: a list is no cell's meaning, so the advice is the one distance
        number, unit = reading
        one = number + (unit or ("" if column.unit else "km"))
        return InputError(
            parameter,
            cell.strip(),
            f"{one} (a decimal point; one distance per row)",
            reason="ambiguous: a decimal comma, or a list of two?",
        )
    allowed = CELL_DISTANCE if error.allowed == FILE_DISTANCES else _in_decimal_mark(error.allowed, dialect)
    if error.unit:
        allowed = f"{cell.strip()}{error.unit}, or the unit in the header: {column.name} [{error.unit}]"
    return InputError(parameter, cell.strip(), allowed, reason=error.reason)


def _in_decimal_mark(advice: str, dialect: Dialect) -> str:
    """Advice with its numbers written in the file's decimal mark: 1.3% as 1,3% in a decimal-comma file."""
    return advice if dialect.decimal == "." else re.sub(r"(?<=\d)\.(?=\d)", dialect.decimal, advice)


def _blame(
    raw: dict, row: int, columns: list[Column], table, dialect: Dialect, where: str, error: ScenarioError
) -> InputError:
    """The column of this row whose cell alone gives a scenario error, named as in the CSV
    (:func:`first_refused`); the scenario's error as it is when no single cell does (two cells that do
    not fit together)."""
    cells = [(column, table.columns[column.index][row]) for column in columns]
    cells = [(column, cell) for column, cell in cells if cell.strip()]
    values = [(column, _cell_value(cell, column, dialect)) for column, cell in cells]
    refused = first_refused(raw, values, where)
    if refused is not None:
        index, alone = refused
        return _cell_error(alone, *cells[index], dialect)
    return InputError(error.key, error.value, _in_decimal_mark(error.allowed, dialect), reason=error.reason)


def run_variants(
    raw: dict, text: str, out: TextIO, err: TextIO, where: str = "variants", source: str = "variants"
) -> int:
    """Solve every row of CSV ``text`` as a variant of the scenario ``raw`` (its parsed TOML, from
    the file ``where``); write the rows with results to ``out``, each bad row's error to ``err``
    as ``SOURCE: row N: ...`` (``source``: the CSV file). Exit status: 0, or 1 if some row failed
    (2 is raised as InputError: the file as a whole cannot be used, checked before any row)."""
    table, dialect = _read_text(text, source)
    titles, results, errors = solve_variants(raw, table, dialect, where, source)
    _write(table, dialect, titles, results, errors, out)
    _report(errors, table.first_row, source, err)
    return 1 if errors else 0


def _read_text(text: str, source: str):
    """The table and dialect of CSV ``text``; an empty file named by its name."""
    try:
        with holding_a_table():
            return read_table(text)
    except InputError as error:
        named = f"{source}: {error.parameter}"
        raise InputError(named, error.value, error.allowed, reason=error.reason) from None


def _report(errors: dict[int, InputError], first_row: int, source: str, err: TextIO) -> None:
    for row in sorted(errors):
        err.write(f"{source}: {errors[row].at_row(row + first_row)}\n")


def solve_variants(
    raw: dict, table, dialect: Dialect, where: str, source: str
) -> tuple[list[str], dict[int, list[float]], dict[int, InputError]]:
    """(result titles, each solved row's results, each failed row's error, shortened as every output shows
    it) of every row of ``table`` as a variant of the scenario ``raw``; InputError for a file that cannot
    be used as a whole."""
    base = scenario_from_dict(raw, where)
    count = table.size - len(table.blank)  # each row read as a scenario of its own: refused before the first
    refuse_scenario_work(
        len(base.members),
        1,
        count,
        f"{source}: {count:,} variant rows",
        "fewer rows per file (split it); distances alone: --distance, not a row each",
    )
    columns = [c for i, t in enumerate(table.header) if (c := override_column(i, t.strip(), raw, source))]
    if not columns:
        raise HeaderError(
            f"{source}: columns",
            ", ".join(t.strip() for t in table.header),
            f"at least one of {KEY_FORMS}",
            reason="no override column",
        )
    named = [c.name for c in columns]
    twice = next((c for c in columns if named.count(c.name) > 1), None)
    if twice is not None:
        raise InputError(f"{source}: column", twice.title, "each key in one column", reason="given twice")
    refuse_no_rows(table, source, "variant")
    if base.distances.size != 1 and ("distance",) not in [c.key for c in columns]:
        raise HeaderError(
            f"{source}: columns",
            ", ".join(t.strip() for t in table.header),
            "a distance column (one distance per row)",
            reason=f"{where} gives {base.distances.size} distances",
        )
    members = [m.name for m in base.members] + (["all"] if len(base.members) > 1 else [])
    groups: dict[str, list[tuple[int, Scenario, float]]] = {}
    errors: dict[int, InputError] = dict(table.errors)
    for row in range(table.size):
        if row in errors or row in table.blank:
            continue
        data = copy.deepcopy(raw)
        if clash := _overlapping([c for c in columns if table.columns[c.index][row].strip()]):
            errors[row] = InputError(
                f"columns {clash[0].title} and {clash[1].title}",
                "both set",
                "one of them in a row",
                reason="one key set twice: which one counts is ambiguous",
            )
            continue
        try:
            for column in columns:
                cell = table.columns[column.index][row]
                if cell.strip():
                    apply_override(data, column, _cell_value(cell, column, dialect))
        except InputError as error:
            errors[row] = InputError(
                f"column {column.title}", error.value, error.allowed, reason=error.reason
            )
            continue
        try:
            variant = with_inferred_locks(scenario_from_dict(data, where))
        except ScenarioError as error:
            errors[row] = _blame(raw, row, columns, table, dialect, where, error)
            continue
        if variant.distances.size != 1:  # a list or range in the cell, or the file's where the cell is empty
            distance = next(c for c in columns if c.key == ("distance",))
            cell = table.columns[distance.index][row].strip()
            errors[row] = InputError(
                f"column {distance.title}",
                cell or "empty cell",
                "one distance per row, e.g. 70km",
                reason=f"{'' if cell else where + ' gives '}{variant.distances.size} distances",
            )
            continue
        signature = repr(sorted((k, v) for k, v in data.items() if k != "distance"))
        groups.setdefault(signature, []).append((row, variant, float(variant.distances[0])))
    refuse_scenario_work(
        len(base.members),
        len(groups),
        0,
        f"{source}: {len(groups):,} distinct variants",
        "fewer rows per file (split it); rows that differ in distance alone solve as one",
    )
    results: dict[int, list[float]] = {}
    for rows in groups.values():
        try:  # a variant too large to compute is refused before its work: its rows fail, the others run
            solved = solve_scenario(rows[0][1], np.array([distance for _, _, distance in rows]))
        except InputError as error:
            errors.update((row, error) for row, _, _ in rows)
            continue
        for place, (row, _, _) in enumerate(rows):
            values: list[float] = []
            for m in range(len(base.members)):
                values += [
                    solved.response_time[m, place] * 1e3,
                    solved.share_within_goal[m, place] * 100,
                    solved.throughput[m, place],
                    solved.cpu_busy[m, place] * 100,
                ]
            if len(base.members) > 1:
                values += [
                    solved.total_response_time[place] * 1e3,
                    solved.total_share_within_goal[place] * 100,
                    solved.total_throughput[place],
                    np.nan,
                ]
            results[row] = values
            fits = solved.terminals_with_answer(place)
            if solved.open_saturated is not None and solved.open_saturated[place]:
                errors[row] = InputError(
                    "arrival_rate",
                    ", ".join(f"{m.name} {m.arrival_rate:g}/s" for m in rows[0][1].members if m.open),
                    OPEN_WAY_OUT,
                    reason=f"{OPEN_SATURATED}: no response time",
                )
            elif solved.disk_saturated[place]:
                errors[row] = InputError(
                    "disk.background_rate",
                    f"{rows[0][1].disk_background:g} SSCH/s",
                    f"less other work than the volumes carry alone ({VOLUMES_WAY_OUT})",
                    reason="IOSQ grows without end: no response time",
                )
            elif fits is not None:
                members_now = rows[0][1].members
                others = [remedy for remedy in solved.remedies(place) if remedy != "fewer terminals"]
                errors[row] = InputError(
                    "lock contention",
                    f"thrashing with {sum(m.terminals for m in members_now)} terminals in all",
                    f"at most {count_in_all([m.name for m in members_now], fits, 'terminals in all')}"
                    " at this distance" + "".join(f", or {remedy}" for remedy in others),
                    reason=f"{THRASHING}: no response time",
                )
    titles = [f"{m}_{quantity}" for m in members for quantity in RESULT_COLUMNS]
    return titles, results, {row: shortened_error(error) for row, error in errors.items()}


def _write(
    table,
    dialect: Dialect,
    titles: list[str],
    results: dict[int, list[float]],
    errors: dict[int, InputError],
    out: TextIO,
) -> None:
    separator = dialect.delimiter
    if dialect.bom:
        out.write("\ufeff")
    titles = [quote_cell(title, separator) for title in titles]  # a member's name is the user's text
    lines = [separator.join([inert_header(table, separator), *titles, "error"])]
    width = separator * (len(table.header) - 1)  # a blank row written back as wide as the header
    for row, text in enumerate(table.row_texts):
        text = width if row in table.blank else text
        values = results.get(row, [np.nan] * len(titles))
        cells = ["" if value != value else (f"{value:.6g}".replace(".", dialect.decimal)) for value in values]
        error = quote_cell(errors[row].message(), separator) if row in errors else ""
        lines.append(separator.join([text, *cells, error]))
    out.write(dialect.line_end.join(lines) + dialect.line_end)


def run_variant_files(scenario_path, input_path: str, output_path: str, sheet: str | None = None) -> int:
    """``qmodel scenario FILE --variants IN.csv -o OUT.csv``: paths in (``-``: stdin/stdout), status out.

    Read and written like a batch (:func:`qmodel.batch.run_batch_files`): a CSV in the input's encoding
    and dialect; a workbook from its first sheet or ``sheet``; ``OUT.xlsx`` a workbook.
    """
    to_workbook = Path(output_path).suffix.lower() in workbook.SUFFIXES
    target = claim_output("-o", output_path, inputs=[scenario_path, input_path])
    raw = read_scenario_toml(scenario_path)
    source = "stdin" if input_path == "-" else input_path
    encoding = "utf-8"
    if workbook.is_workbook(input_path):
        table, sheet_name = read_sheet_table(input_path, sheet, texts=not to_workbook)
        cells = [[workbook.cell_text(cell) for cell in column] for column in table.columns]
        table, dialect = table._replace(columns=cells), Dialect()
    else:
        if sheet is not None:
            raise InputError(
                "--sheet",
                sheet,
                "--sheet with a workbook (.xlsx, .xlsm, .ods, .xls)",
                reason=f"{source} is CSV",
            )
        text, encoding = read_csv_file(input_path, sys.stderr, "--variants")
        table, dialect = _read_text(text, source)
        sheet_name = "variants" if input_path == "-" else Path(input_path).stem
    with other_sheets_named(input_path, sheet):
        titles, results, errors = solve_variants(raw, table, dialect, scenario_path.name, source)
    if to_workbook:
        facts = [
            ("scenario", str(scenario_path)),
            ("input", input_path),
            ("sheet", sheet_name),
            ("variants solved", len(results) - len(set(results) & set(errors))),
            ("variants failed", len(errors)),
        ]
        by_title = [
            [results[row][place] if row in results else None for row in range(table.size)]
            for place in range(len(titles))
        ]
        write_table_workbook(
            target, table, [*titles, "error"], by_title, errors, list(range(table.size)), sheet_name, facts
        )
    else:
        buffer = io.StringIO()
        _write(table, dialect, titles, results, errors, buffer)
        write_csv_file(target, buffer.getvalue(), encoding)
    _report(errors, table.first_row, source, sys.stderr)
    return 1 if errors else 0
