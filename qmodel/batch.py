"""Batch: a catalogue entry over every row of a table (a CSV export or a workbook), the same rows out
with results appended.

Headers name symbols as people write them: ``service_time``, ``Service Time``,
``Service Time (ms)``, ``service time [us]`` (case, spaces and a unit in
brackets or parentheses are understood); ``--map COLUMN=SYMBOL`` names any
other column. Other columns pass through unchanged. Evaluation is vectorized
over all rows. A bad row keeps its place, gets its message in the ``error``
column and on stderr with its row number (row 1 is the first line after the
header; blank lines count, as in the spreadsheet), and every good row is still
computed. A blank line is written back as it came, neither computed nor failed.

The table is read and written by :mod:`qmodel.tables`: a CSV in its own dialect (separator, decimal
mark, byte-order mark, line ends: :mod:`qmodel.tables.dialect`) and encoding; a workbook (.xlsx,
.xlsm, .ods, .xls) from its first sheet or ``--sheet``, numbers as numbers, rows numbered as the
spreadsheet shows them; ``-o OUT.xlsx`` writes a workbook of the rows with their results, the failed
rows and the run. In Python, :func:`run` takes a pandas DataFrame or a mapping of columns.

Exit status: 0 all rows computed without a warning, 1 some rows failed or were warned (a ``warn``
constraint broken: the answer written, the state it describes does not last), 2 the file cannot be
used (no header, unknown formula, missing column, a workbook that cannot be read).
"""

from __future__ import annotations

import codecs
import contextlib
import io
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, NamedTuple, TextIO

import numpy as np

from qmodel import frames
from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import Formula, get_formula
from qmodel.errors import HeaderError, InputError
from qmodel.outfile import claim_output
from qmodel.tables import csvbytes, workbook
from qmodel.tables.csvsource import CsvSource, read_csv_source, source_of_text
from qmodel.tables.dialect import Dialect, decide_decimal, decimal_evidence, locale_number, quote_cell
from qmodel.tables.files import CP1252_SPELLING, ResultsWorkbook, other_sheets_named, read_sheet_table
from qmodel.tables.header import split_header
from qmodel.tables.table import (
    Table,
    blank_cells,
    holding_a_table,
    inert_header,
    inert_row_bytes,
    shortened_error,
)
from qmodel.units import UNITS, parse_value, split_number, unit_named, with_unit


def _symbol_of(title: str, formula: Formula, mapping: dict[str, str]) -> tuple[str, str | None] | None:
    """(symbol, unit text) a header names, or None for a pass-through column.

    ``Service Time (ms)``, ``service time [ms]`` and ``SERVICE_TIME`` all name
    service_time: case is ignored and spaces, hyphens and dots read as ``_``.
    ``mapping`` (from --map) names a symbol for a header as written.
    """
    named = split_header(title)
    unit_text = named[1] if named else None
    for key in (title.strip(), named[0] if named else None):
        if key is not None and key in mapping:
            target = split_header(mapping[key])
            if target is None:
                raise InputError(
                    "--map",
                    f"{key}={mapping[key]}",
                    "COLUMN=SYMBOL or COLUMN=SYMBOL[unit], "
                    "a symbol of " + formula.id + ": " + ", ".join(formula.symbols),
                    reason="not a symbol name",
                )
            return target[0], target[1] or unit_text
    if named is None:
        return None
    name = re.sub(r"[\s.\-]+", "_", named[0]).lower()
    return (name, unit_text) if name in formula.symbols else None


class ColumnUnit(NamedTuple):
    """An input column's units: its symbol's, and the header's (the symbol's where the header names none)."""

    symbol: str
    header: str


def _input_columns(
    formula: Formula, header: list[str], given: Set[str] = frozenset(), mapping: dict[str, str] | None = None
) -> dict[str, tuple[int, float, ColumnUnit]]:
    """Map each symbol to (column index, factor from the column's unit to the symbol's unit, the column's
    unit: the header's, else the symbol's).

    Header names match symbols as :func:`_symbol_of` reads them; ``given``
    are inputs supplied otherwise, which need no column.
    """
    mapping = mapping or {}
    unused = [
        key
        for key in mapping
        if key not in header and key not in {named[0] for title in header if (named := split_header(title))}
    ]
    if unused:
        raise InputError(
            "--map", unused[0], "a column of the header: " + ", ".join(header), reason="no such column"
        )
    columns: dict[str, tuple[int, float, ColumnUnit]] = {}
    for index, title in enumerate(header):
        named = _symbol_of(title, formula, mapping)
        if named is None:
            continue  # not an input: passes through unchanged
        name, unit_name = named
        if name not in formula.symbols:
            raise InputError(
                "--map",
                f"{title}={name}",
                "a symbol of " + formula.id + ": " + ", ".join(formula.symbols),
                reason="not an input",
            )
        symbol_unit = UNITS[formula.symbols[name].unit]
        column_unit = symbol_unit if unit_name is None else unit_named(unit_name)
        if column_unit is None or column_unit.dimension != symbol_unit.dimension:
            raise InputError(
                f"column {title!r}",
                unit_name,
                f"a {symbol_unit.dimension} unit such as {symbol_unit.name}",
                reason="unit does not fit the symbol",
            )
        if name in columns:
            raise InputError(
                f"column {title!r}", name, "each input in one column", reason="input given twice"
            )
        units = ColumnUnit(formula.symbols[name].unit, column_unit.name)
        columns[name] = (index, column_unit.to_si / symbol_unit.to_si, units)
    missing = [
        n for n, s in formula.symbols.items() if n not in columns and n not in given and s.default is None
    ]
    if missing:
        raise HeaderError(
            "columns",
            ", ".join(header),
            "a header naming "
            + ", ".join(missing)
            + f", or --map 'COLUMN={missing[0]}' to read another column as it",
            reason=f"missing required column(s) for {formula.id}",
        )
    return columns


def _read_column(
    table: Table,
    index: int,
    name: str,
    unit: ColumnUnit,
    factor: float,
    errors: dict[int, InputError],
    dialect: Dialect | None,
) -> np.ndarray:
    """Numbers of the table's input column ``index``; cells that do not parse become errors of their rows.

    A workbook's cells (``dialect`` None) by :func:`_typed_column`; a CSV's by :func:`_parse_column`,
    where the file's rows are bytes the plain decimals read in bulk
    (:func:`qmodel.tables.csvbytes.plain_decimals`, exactly as ``float``) and only the other cells one by one.
    """
    if dialect is None:
        return _typed_column(name, unit, table.columns[index], errors, factor)
    if table.text is None:
        return _parse_column(name, unit, table.columns[index], factor, errors, dialect)
    if dialect.decimal != ".":
        return _parse_column(name, unit, table.text.cells(index), factor, errors, dialect)
    values, unread = table.text.numbers(index)
    if factor != 1.0:
        values *= factor
    blank = table.text.layout.blank
    values[blank] = np.nan  # as a missing cell reads; a blank row is neither computed nor failed
    rows = np.flatnonzero(unread & ~blank)
    if rows.size:
        found: dict[int, InputError] = {}
        values[rows] = _parse_column(name, unit, table.text.cells(index, rows), factor, found, dialect)
        for place, error in found.items():
            errors.setdefault(int(rows[place]), error)
    return values


def _parse_column(
    name: str,
    unit: ColumnUnit,
    cells: list[str],
    factor: float,
    errors: dict[int, InputError],
    dialect: Dialect,
) -> np.ndarray:
    """Numbers of one CSV column's cells; cells that do not parse become errors of their rows.

    Fast paths: plain numbers in one numpy call; in a decimal-comma file whose
    column has no point and no 1,234-shaped cell, every comma becomes a point.
    ``factor`` takes a bare number from the header's unit to the symbol's; a cell with its own unit
    (0.4ms) is read in that unit.
    """
    if dialect.decimal == ",":
        joined = "\n".join(cells)
        if "." in joined or re.search(r"\d,\d{3}(?!\d)", joined):
            return _parse_cells(name, unit, cells, errors, dialect, factor)
        cells, dialect = joined.replace(",", ".").split("\n"), Dialect(dialect.delimiter)
    try:
        values = np.array(cells, dtype=float)
    except ValueError:
        return _parse_cells(name, unit, cells, errors, dialect, factor)
    return values * factor if factor != 1.0 else values


def _cell_value(name: str, text: str, unit: ColumnUnit, factor: float) -> float:
    """A cell in a CLI value's form (35K, 0.4ms, 95%): in its own unit where it names one, else in the
    header's (``factor`` to the symbol's unit), which a refusal advises."""
    parts = split_number(text)
    if parts is not None and unit_named(parts[1]) is not None:
        return parse_value(name, text, unit.symbol)
    return parse_value(name, text, unit.header) * factor


def _typed_column(
    name: str, unit: ColumnUnit, cells: list, errors: dict[int, InputError], factor: float
) -> np.ndarray:
    """A workbook column: its number cells as they are (no locale); a text cell read as a CLI value
    (35K, 0.4ms, 95%); a date, a time, a boolean or an empty cell an error of its row."""
    if {type(cell) for cell in cells} <= {float, int}:
        values = np.array(cells, dtype=float)
        return values * factor if factor != 1.0 else values
    values = np.empty(len(cells))
    for row, cell in enumerate(cells):
        try:
            if workbook.is_number(cell):
                values[row] = cell * factor
            elif isinstance(cell, str) and cell.strip():
                values[row] = _cell_value(name, cell.strip(), unit, factor)
            elif isinstance(cell, str):
                raise InputError(name, "empty", "a number", reason="missing cell")
            else:
                kind = "a true/false cell" if isinstance(cell, bool) else "a date or time"
                raise InputError(
                    name,
                    workbook.cell_text(cell),
                    "a number (format the cell as a number)",
                    reason=f"{kind} where a number belongs",
                )
        except InputError as error:
            errors.setdefault(row, error)
            values[row] = np.nan
    return values


def _parse_cells(
    name: str,
    unit: ColumnUnit,
    cells: list[str],
    errors: dict[int, InputError],
    dialect: Dialect,
    factor: float = 1.0,
) -> np.ndarray:
    """One cell at a time: the locale's marks, then the CLI's value forms (35K, 0.4ms, 95%)."""
    values = np.empty(len(cells))
    point = dialect.decimal == "."
    for row, cell in enumerate(cells):
        try:
            if not cell.strip():
                raise InputError(name, "empty", "a number", reason="missing cell")
            try:
                values[row] = float(cell if point else locale_number(name, cell, dialect)) * factor
            except ValueError:
                values[row] = _cell_value(name, locale_number(name, cell, dialect), unit, factor)
        except InputError as error:
            errors.setdefault(row, error)
            values[row] = np.nan
    return values


def _checked_settings(formula: Formula, settings: Mapping[str, object]) -> dict[str, float]:
    """The settings (inputs given once for every row: a command's options, :func:`run`'s keywords) as
    numbers in their symbols' units, each checked as the command line checks it: a name the formula has,
    one value (a number, or text in a CLI value's form, ``"1ms"``) inside its symbol's domain. A bad one
    is one usage error naming it, not an error on every row."""
    checked = {}
    for name, value in settings.items():
        symbol = formula.symbols.get(name)
        if symbol is None:
            raise InputError(
                name,
                value,
                f"an input of {formula.id}: " + ", ".join(formula.symbols),
                reason=f"not an input of {formula.id}",
            )
        if isinstance(value, str):
            value = parse_value(name, value, symbol.unit)
        elif isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise InputError(
                name,
                type(value).__name__,
                "one number, or text such as '1ms', for every row "
                "(a column of the table for a value per row)",
                reason="not one value",
            )
        checked[name] = float(value)
        if not symbol.domain.contains(np.asarray(checked[name])).all():
            raise InputError(
                name,
                with_unit(f"{checked[name]:g}", symbol.unit),
                symbol.domain.describe(name) + ("" if symbol.unit == "1" else f" ({symbol.unit})"),
                reason="a ratio is a fraction: write 95% or 0.95"
                if symbol.unit == "ratio" and checked[name] > 1
                else "outside its domain",
            )
    return checked


def _formula(formula_id: object) -> Formula:
    """The catalogue entry ``formula_id`` names (InputError for anything but a known id)."""
    if not isinstance(formula_id, str):
        raise InputError(
            "formula",
            repr(formula_id),
            "a formula id of the catalogue, e.g. 'mm1' (qmodel formula list)",
            reason="not an id",
        )
    return get_formula(formula_id)


def _result_titles(formula: Formula, header: list[str]) -> list[str]:
    """Titles of the appended columns; one a column of the file already has gets a ``qmodel_`` prefix."""
    taken = {title.strip().lower() for title in header}
    titles = []
    for title in [frames.key(o.name, o.unit) for o in formula.outputs] + ["error"]:
        while title.lower() in taken:
            title = f"qmodel_{title}"
        taken.add(title.lower())
        titles.append(title)
    return titles


class _Plan(NamedTuple):
    """What a batch decides once, before its first row: the formula, the column and unit factor of each
    input, the settings, how a CSV's cells are read (its decimal mark decided from every input cell;
    None for a sheet's or a DataFrame's typed cells) and written, the result columns' titles."""

    formula: Formula
    columns: dict[str, tuple[int, float, ColumnUnit]]
    settings: dict[str, float]
    cell_dialect: Dialect | None
    dialect: Dialect
    titles: list[str]


def _plan(
    formula: Formula,
    header: list[str],
    settings: dict[str, float],
    mapping: dict[str, str] | None,
    dialect: Dialect | None,
    chunks: Callable[[], Iterable[Table]],
) -> _Plan:
    """The :class:`_Plan` of a table with ``header`` and ``dialect``; a ";" or TAB CSV's decimal mark
    from the input cells of all of ``chunks()`` (a pass over the file before the first row is computed)."""
    columns = _input_columns(formula, [title.strip() for title in header], set(settings), mapping)
    titles = _result_titles(formula, header)
    if dialect is None:  # a workbook's rows are written as CSV in the default dialect
        return _Plan(formula, columns, settings, None, Dialect(), titles)
    if dialect.delimiter != ",":
        comma = point = 0
        for chunk in chunks():
            cells = [cell for index, _, _ in columns.values() for cell in chunk.cells(index)]
            found = decimal_evidence(cells)
            comma, point = comma + found[0], point + found[1]
        decimal, known = decide_decimal(dialect.delimiter, comma, point)
        dialect = replace(dialect, decimal=decimal, known=known)
    return _Plan(formula, columns, settings, dialect, dialect, titles)


class _Computed(NamedTuple):
    """A table (or one chunk of it) computed: each output by row, each failed row's error, warnings."""

    plan: _Plan
    table: Table
    outputs: dict[str, np.ndarray]
    errors: dict[int, InputError]
    warned: dict[int, list[str]]

    @property
    def formula(self) -> Formula:
        return self.plan.formula

    @property
    def dialect(self) -> Dialect:
        return self.plan.dialect

    def report(self, err: TextIO) -> None:
        """Each failed row's error and each warning on ``err``, by the row number the spreadsheet shows."""
        first, name = self.table.first_row + self.table.offset, self.formula.id
        for row in sorted(self.errors):
            err.write(f"{name}: {self.errors[row].at_row(row + first)}\n")
        for row, warnings in sorted(self.warned.items()):
            err.writelines(f"{name}: row {row + first}: warning: {warning}\n" for warning in warnings)


def _compute(plan: _Plan, table: Table) -> _Computed:
    """Evaluate the plan's formula on every row of ``table``. Each row's error is kept shortened
    (:func:`shortened_error`), as every output shows it."""
    errors = dict(table.errors)
    inputs: dict[str, float | np.ndarray] = dict(plan.settings)
    for name, (index, factor, unit) in plan.columns.items():
        inputs[name] = _read_column(table, index, name, unit, factor, errors, plan.cell_dialect)
    outputs: dict[str, np.ndarray] = {}
    warned: dict[int, list[str]] = {}
    if table.size:
        evaluation = evaluate(plan.formula, inputs)
        warned = evaluation.warnings
        for row, error in evaluation.errors.items():
            errors.setdefault(row, error)
        outputs = {name: values + 0.0 for name, values in evaluation.outputs.items()}  # -0 is written 0
    errors = {row: shortened_error(error) for row, error in errors.items() if row not in table.blank}
    return _Computed(plan, table, outputs, errors, warned)


def _selected(done: _Computed, select) -> Sequence[int]:
    """The rows to write, in order: every row, or those ``select(outputs, errors)`` returns (not blank)."""
    if select is None:
        return range(done.table.size)
    return [row for row in select(done.outputs, done.errors) if row not in done.table.blank]


class _Source(NamedTuple):
    """Where a batch's rows come from: the header, how a CSV wrote them (None: typed cells), the rows in
    chunks (each a :class:`Table` with its offset) or whole (for a selection that ranks every row)."""

    header: list[str]
    dialect: Dialect | None
    chunks: Callable[[], Iterable[Table]]
    whole: Callable[[], Table]


def _csv_source(source: CsvSource, rows_as_bytes: bool) -> _Source:
    return _Source(
        source.header,
        source.dialect,
        lambda: source.chunks(rows_as_bytes),
        lambda: source.whole(rows_as_bytes),
    )


def _table_source(table: Table) -> _Source:
    return _Source(table.header, table.dialect, lambda: [table], lambda: table)


KEPT_ERRORS = 1000  # failed rows whose error a summary keeps (every failed row is counted and reported)


@dataclass
class BatchSummary:
    """What a batch run did: rows computed, rows failed (the first :data:`KEPT_ERRORS` errors kept, by
    row index), rows computed with a warning, blank lines kept as they came."""

    rows: int = 0
    errors: dict[int, InputError] = field(default_factory=dict)
    blank_lines: int = 0
    failed: int = 0
    warned: int = 0

    @property
    def status(self) -> int:
        """1 where some rows failed or were warned (as ``calc`` with a warning), else 0."""
        return 1 if self.failed or self.warned else 0

    def add(self, done: _Computed) -> None:
        """Count a computed chunk: its rows that are not blank, its blank ones and its failures."""
        blank = done.table.blank
        self.rows += done.table.size - len(blank)
        self.blank_lines += len(blank)
        self.failed += len(done.errors)
        self.warned += len(done.warned.keys() - done.errors.keys())
        offset = done.table.offset
        for row in sorted(done.errors)[: max(KEPT_ERRORS - len(self.errors), 0)]:
            self.errors[row + offset] = done.errors[row]


class _Progress:
    """How far a long batch has got, for the person at a terminal: a line on ``err`` at most once every
    :data:`INTERVAL` seconds as chunks are computed, and none when ``err`` is not a terminal (a pipe, a
    file, a test's buffer), so that no output or log ever holds it."""

    INTERVAL = 1.0  # seconds

    def __init__(self, err: TextIO) -> None:
        try:
            terminal = err.isatty()
        except (AttributeError, ValueError):  # no isatty, or closed
            terminal = False
        self.err = err if terminal else None
        self.start = time.monotonic()
        self.due = self.start + self.INTERVAL

    def rows(self, rows: int) -> None:
        """Say how many rows are done, if a terminal listens and the last line is old enough."""
        if self.err is None:
            return
        now = time.monotonic()
        if now >= self.due:
            self.err.write(f"batch: {rows:,} rows so far ({now - self.start:.0f} s)\n")
            self.err.flush()
            self.due = now + self.INTERVAL


@holding_a_table()
def _run(
    formula_id: str,
    source: _Source,
    sink,
    err: TextIO,
    name: str,
    *,
    settings: dict[str, float] | None,
    select,
    mapping: dict[str, str] | None,
) -> BatchSummary:
    """The one flow of a batch, whatever it reads and writes: the formula and its settings checked, the
    plan made from the header, then chunk by chunk the rows computed, written by ``sink(computed, rows)``
    and their failures reported on ``err``; a file of no row refused (``name`` names it) before the
    sink's output is let out. A selection (``select``) ranks every row: the table is computed whole.
    At a terminal, ``err`` hears how far it has got (:class:`_Progress`)."""
    formula = _formula(formula_id)
    settings = _checked_settings(formula, settings or {})
    plan = _plan(formula, source.header, settings, mapping, source.dialect, source.chunks)
    summary, progress = BatchSummary(), _Progress(err)
    for table in [source.whole()] if select is not None else source.chunks():
        done = _compute(plan, table)
        rows = _selected(done, select)
        sink(done, rows)
        done.report(err)
        summary.add(done)
        progress.rows(summary.rows)
    if summary.rows == 0:
        raise InputError(
            name,
            "blank rows only" if summary.blank_lines else "a header only",
            "one row per computation under the header",
            reason="no rows",
        )
    return summary


def run_batch(
    formula_id: str,
    text: str,
    out: TextIO,
    err: TextIO,
    *,
    settings: dict[str, float] | None = None,
    select=None,
    mapping: dict[str, str] | None = None,
) -> BatchSummary:
    """Evaluate ``formula_id`` for every data row of CSV ``text``; write the rows to ``out``.

    ``settings`` give inputs that no column gives (a command's options);
    ``select(outputs, errors)`` returns the rows to write, in order (default:
    all rows as they came); ``mapping`` names the symbol of a column whose
    header does not. The output is written in the input's dialect (separator,
    decimal mark, byte-order mark, line ends). Raises InputError when the file
    as a whole cannot be used (status 2).
    """
    written = io.BytesIO()
    summary = _run(
        formula_id,
        _csv_source(source_of_text(text), True),
        _csv_sink(written),
        err,
        "file",
        settings=settings,
        select=select,
        mapping=mapping,
    )
    out.write(written.getvalue().decode())
    return summary


@holding_a_table()
def run(formula_id: str, table, *, mapping: dict[str, str] | None = None, **settings: float):
    """Evaluate ``formula_id`` for every row of ``table``: a pandas DataFrame or any mapping of column
    name to a sequence of values (numbers, or text as a CLI value: ``"0.4ms"``, ``"95%"``).

    Column names are read as CSV headers are (``Service Time (ms)``, ``service_time[us]``; ``mapping``
    as ``--map``); ``settings`` give inputs no column gives, in their symbols' units. Returns a pandas
    DataFrame: the input columns, one column per output named ``name[unit]``, and an ``error`` column
    (empty where the row computed). A bad row keeps its place with its error; nothing is dropped. The
    rows' warnings (a ``warn`` constraint broken: the answer stands, the state does not last) are in
    ``frame.attrs["warnings"]`` as ``row N: ...`` (rows numbered from 1) and raised once as a Python
    warning naming the first.
    Raises InputError when the table as a whole cannot be used (a missing column).

    :param formula_id: the catalogue entry's id.
    :param table: a pandas DataFrame, or a mapping of column name to values.
    :param mapping: column → symbol, as ``--map`` takes it (``{"Rate": "arrival_rate[1/s]"}``).
    :param settings: inputs no column gives, each in its symbol's display unit.
    :returns: a pandas DataFrame: the input columns, each output as ``name[unit]``, and ``error``.
    :raises InputError: the table as a whole cannot be used (a missing column).
    """
    formula = _formula(formula_id)
    settings = _checked_settings(formula, settings)
    if mapping is not None and not (
        isinstance(mapping, Mapping)
        and all(isinstance(item, str) for pair in mapping.items() for item in pair)
    ):
        raise InputError(
            "mapping",
            repr(mapping)[:80],
            "a mapping of column name to symbol name, e.g. {'IO rate': 'arrival_rate'}",
            reason="not names",
        )
    header, columns = frames.table_columns(table)
    parsed = Table(header, "", [], columns, {}, blank_cells(columns))
    plan = _plan(formula, header, settings, mapping, None, lambda: [parsed])
    done = _compute(plan, parsed)
    titles = plan.titles
    results = {
        title: done.outputs[o.name] if done.outputs else np.full(parsed.size, np.nan)
        for title, o in zip(titles, formula.outputs, strict=False)
    }
    for row in done.errors:
        for values in results.values():
            values[row] = np.nan
    messages = [done.errors[row].message() if row in done.errors else "" for row in range(parsed.size)]
    warned = [f"row {row + 1}: {warning}" for row, texts in sorted(done.warned.items()) for warning in texts]
    return frames.batch_frame(table, results, titles[-1], messages, warned)


def _csv_sink(out: BinaryIO, encoding: str = "utf-8"):
    """A sink writing a batch as CSV (:func:`csv_output`) to ``out``, in ``encoding``, each chunk flushed
    before its failures are reported (so that standard output and error interleave in order): the header
    with the first chunk, held back until a row that is not blank has been computed (a file of blank rows
    only is refused with nothing written)."""
    encoder = None if encoding == "utf-8" else codecs.getincrementalencoder(encoding)("replace")
    held: list[bytes] = []
    state = {"header": True, "rows": False}

    def sink(done: _Computed, rows: Sequence[int]) -> None:
        data = csv_output(done, rows, header=state["header"])
        state["header"] = False
        if encoder is not None:
            text = data.decode()
            data = encoder.encode(text.translate(CP1252_SPELLING) if encoding == "cp1252" else text)
        state["rows"] = state["rows"] or len(done.table.blank) < done.table.size
        held.append(data)
        if state["rows"]:
            for piece in held:
                out.write(piece)
            out.flush()
            held.clear()

    return sink


def csv_output(done: _Computed, rows: Sequence[int], header: bool = True) -> bytes:
    """The batch as CSV in UTF-8: the header with the result titles (``header``: the first chunk), then
    each selected row's text with its results (12 significant digits, :func:`qmodel.tables.csvbytes.g12`)
    and its error, if any.

    In the input's dialect: its separator, decimal mark, byte-order mark and line ends. A blank row is
    written back as it came; a failed row with empty result cells and its error. A cell a spreadsheet
    would evaluate as a formula is written inert (:func:`qmodel.tables.table.inert_row_bytes`).
    """
    dialect, table = done.dialect, done.table
    pieces = []
    if header:
        line = dialect.delimiter.join([inert_header(table, dialect.delimiter), *done.plan.titles])
        pieces.append((("\ufeff" if dialect.bom else "") + line + dialect.line_end).encode())
    data, starts, ends = inert_row_bytes(table, dialect.delimiter)
    in_order = rows == range(starts.size)
    picked = np.arange(starts.size) if in_order else np.asarray(rows, dtype=np.int64)
    for first in range(0, picked.size, csvbytes.CHUNK):
        chunk = picked[first : first + csvbytes.CHUNK]
        if in_order:
            begin = starts[chunk[0]]
            text, line_ends = data[begin : ends[chunk[-1]] + 1], ends[chunk] - begin
        else:
            text, line_ends = csvbytes.taken(data, starts[chunk], ends[chunk])
        added, lengths = _appended(done, chunk, ends[chunk] > starts[chunk])
        out = csvbytes.insert(text, line_ends, added, lengths)
        if dialect.line_end == "\r":
            out[line_ends + np.cumsum(lengths)] = ord("\r")
        pieces.append(out.tobytes())
    return b"".join(pieces)


def _appended(done: _Computed, rows: np.ndarray, has_text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, length per row) each of ``rows`` gets before its line feed: a separator and each result,
    a separator and its error (empty where it computed), and a CR where the file's lines end in CRLF."""
    formula, table, dialect = done.formula, done.table, done.dialect
    outputs, errors = done.outputs, done.errors
    delimiter = ord(dialect.delimiter)
    tail = np.frombuffer(dialect.line_end[:-1].encode(), np.uint8)  # CRLF's CR: the LF is the row's
    special = np.flatnonzero(np.isin(rows, [*errors, *table.blank]))
    results = []
    for output in formula.outputs:
        values = outputs[output.name][rows]
        values[special] = 0.0  # not written: a failed row's NaN would take Python's route
        results.append(csvbytes.g12(values))
    width = sum(1 + chars.shape[1] for chars, _ in results) + 1 + tail.size
    cells = np.empty((rows.size, width), dtype=np.uint8)
    kept = np.ones((rows.size, width), dtype=bool)
    column = 0
    for chars, lengths in results:
        if dialect.decimal != ".":
            chars[chars == csvbytes.POINT] = ord(dialect.decimal)
        cells[:, column] = delimiter
        cells[:, column + 1 : column + 1 + chars.shape[1]] = chars
        kept[:, column + 1 : column + 1 + chars.shape[1]] = np.arange(chars.shape[1]) < lengths[:, None]
        column += 1 + chars.shape[1]
    cells[:, column] = delimiter
    cells[:, column + 1 :] = tail
    kept[special] = False
    added = cells[kept]
    lengths = np.full(rows.size, len(results) + 1 + tail.size)  # the separators and a CR
    for _, sizes in results:
        lengths += sizes
    lengths[special] = 0
    if special.size:
        blanks, end = dialect.delimiter * (len(formula.outputs) + 1), dialect.line_end[:-1]
        texts = [
            (
                blanks + quote_cell(errors[row].message(), dialect.delimiter)
                if row in errors
                else blanks
                if has_text[place]
                else ""
            )
            + end
            for place, row in zip(special.tolist(), rows[special].tolist(), strict=True)
        ]
        sizes = np.array([len(text.encode()) for text in texts])
        at = np.cumsum(lengths)[special]
        added = csvbytes.insert(added, at, np.frombuffer("".join(texts).encode(), np.uint8), sizes)
        lengths[special] = sizes
    return added, lengths


def run_batch_files(
    formula_id: str,
    input_path: str,
    output_path: str,
    *,
    settings: dict[str, float] | None = None,
    select=None,
    mapping: dict[str, str] | None = None,
    sheet: str | None = None,
) -> int:
    """The ``qmodel batch`` command: paths (``-`` for stdin/stdout) in, exit status out.

    The output is claimed before any work is done (:func:`qmodel.outfile.claim_output`: not the
    input, not being written by another run) and written whole or not at all, a chunk of rows at a time
    (a file of any length in bounded memory). A CSV is written in the input's encoding and dialect (a
    workbook's rows as CSV with ``,`` and a decimal point); ``OUT.xlsx`` is a workbook
    (:func:`write_results_workbook`).
    """
    to_workbook = Path(output_path).suffix.lower() in workbook.SUFFIXES
    if to_workbook and Path(output_path).suffix.lower() != ".xlsx":
        raise InputError("-o", output_path, "OUT.xlsx or OUT.csv", reason="qmodel writes workbooks as .xlsx")
    target = claim_output("-o", output_path, inputs=[input_path])
    name = "standard input" if input_path == "-" else input_path
    sheet_name, encoding = "results" if input_path == "-" else Path(input_path).stem, "utf-8"
    if workbook.is_workbook(input_path):
        table, sheet_name = read_sheet_table(input_path, sheet, texts=not to_workbook)
        source = _table_source(table)
    else:
        if sheet is not None:
            raise InputError(
                "--sheet",
                sheet,
                "--sheet with a workbook (.xlsx, .xlsm, .ods, .xls)",
                reason=f"{name} is CSV",
            )
        csv_file = read_csv_source(input_path, sys.stderr)
        source, encoding = _csv_source(csv_file, rows_as_bytes=True), csv_file.encoding
    with other_sheets_named(input_path, sheet), target.open() as handle:
        if to_workbook:
            run_facts = [
                ("input", input_path),
                ("sheet", sheet_name if source.dialect is None else "(CSV)"),
                *((f"--map {column}", symbol) for column, symbol in (mapping or {}).items()),
                *((f"setting {key}", value) for key, value in (settings or {}).items()),
            ]
            with workbook_sink(handle, sheet_name, run_facts) as sink:
                summary = _run(
                    formula_id,
                    source,
                    sink,
                    sys.stderr,
                    name,
                    settings=settings,
                    select=select,
                    mapping=mapping,
                )
                sink.finish(summary)
        else:
            summary = _run(
                formula_id,
                source,
                _csv_sink(handle, encoding),
                sys.stderr,
                name,
                settings=settings,
                select=select,
                mapping=mapping,
            )
    computed = summary.rows - summary.failed
    warned = f", {summary.warned} warned" if summary.warned else ""
    blank = f", {summary.blank_lines} blank line(s) kept as they were" if summary.blank_lines else ""
    sys.stderr.write(
        f"{formula_id}: {computed} row{'' if computed == 1 else 's'} computed, "
        f"{summary.failed} failed{warned}{blank}\n"
    )
    return summary.status


@contextlib.contextmanager
def workbook_sink(handle: BinaryIO, sheet_name: str, run_facts: list[tuple[str, object]]):
    """A sink writing a batch as an .xlsx to ``handle`` as its chunks come
    (:class:`qmodel.tables.workbook.XlsxWriter`): the input's sheet with the result columns, a sheet
    ``failed rows`` and a sheet ``run`` (the formula, its source, each output's expression, the input,
    options and counts); ``sink.finish(summary)`` writes the last two."""
    with ResultsWorkbook(handle, sheet_name) as book:
        state: dict[str, Formula] = {}

        def sink(done: _Computed, rows: Sequence[int]) -> None:
            state["formula"] = done.formula
            book.add(
                done.table,
                done.plan.titles,
                [done.outputs.get(o.name) for o in done.formula.outputs],
                done.errors,
                rows,
                done.plan.cell_dialect,
            )

        def finish(summary: BatchSummary) -> None:
            formula = state["formula"]
            facts = [
                ("formula", formula.id),
                ("title", formula.title),
                ("source", formula.source),
                ("catalogue file", formula.file),
                *((frames.key(o.name, o.unit), o.expr) for o in formula.outputs),
                *run_facts,
                ("rows computed", summary.rows - summary.failed),
                ("rows failed", summary.failed),
                ("rows warned", summary.warned),
                ("blank rows", summary.blank_lines),
            ]
            book.finish(facts)

        sink.finish = finish  # type: ignore[attr-defined]
        yield sink
