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

Exit status: 0 all rows computed, 1 some rows failed, 2 the file cannot be used
(no header, unknown formula, missing column, a workbook that cannot be read).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple, TextIO

import numpy as np

from qmodel import frames
from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import Formula, get_formula
from qmodel.errors import InputError
from qmodel.output import check_output_path
from qmodel.tables import csvbytes, workbook
from qmodel.tables.dialect import Dialect, locale_number, quote_cell, sniff_decimal
from qmodel.tables.files import read_csv_file, read_sheet_table, write_csv_file, write_table_workbook
from qmodel.tables.table import (
    Table,
    blank_cells,
    holding_a_table,
    refuse_no_rows,
    row_bytes,
    shortened_error,
    split_header,
    split_text,
)
from qmodel.units import UNITS, parse_value, split_number, unit_named, with_unit


@dataclass
class BatchSummary:
    """What a batch run did: rows computed and the errors of the rows that failed."""

    rows: int
    errors: dict[int, InputError]
    blank_lines: int = 0

    @property
    def status(self) -> int:
        return 1 if self.errors else 0



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
                raise InputError("--map", f"{key}={mapping[key]}", "COLUMN=SYMBOL or COLUMN=SYMBOL[unit], "
                                 "a symbol of " + formula.id + ": " + ", ".join(formula.symbols),
                                 reason="not a symbol name")
            return target[0], target[1] or unit_text
    if named is None:
        return None
    name = re.sub(r"[\s.\-]+", "_", named[0]).lower()
    return (name, unit_text) if name in formula.symbols else None



def _input_columns(formula: Formula, header: list[str], given: set[str] = frozenset(),
                   mapping: dict[str, str] | None = None) -> dict[str, tuple[int, float]]:
    """Map each symbol to (column index, factor from the column's unit to the symbol's unit).

    Header names match symbols as :func:`_symbol_of` reads them; ``given``
    are inputs supplied otherwise, which need no column.
    """
    mapping = mapping or {}
    unused = [key for key in mapping if key not in header
              and key not in {named[0] for title in header if (named := split_header(title))}]
    if unused:
        raise InputError("--map", unused[0], "a column of the header: " + ", ".join(header),
                         reason="no such column")
    columns: dict[str, tuple[int, float]] = {}
    for index, title in enumerate(header):
        named = _symbol_of(title, formula, mapping)
        if named is None:
            continue  # not an input: passes through unchanged
        name, unit_name = named
        if name not in formula.symbols:
            raise InputError("--map", f"{title}={name}", "a symbol of " + formula.id + ": "
                             + ", ".join(formula.symbols), reason="not an input")
        symbol_unit = UNITS[formula.symbols[name].unit]
        factor = 1.0
        if unit_name is not None:
            given = unit_named(unit_name)
            if given is None or given.dimension != symbol_unit.dimension:
                raise InputError(f"column {title!r}", unit_name,
                                 f"a {symbol_unit.dimension} unit such as {symbol_unit.name}",
                                 reason="unit does not fit the symbol")
            factor = given.to_si / symbol_unit.to_si
        if name in columns:
            raise InputError(f"column {title!r}", name, "each input in one column",
                             reason="input given twice")
        columns[name] = (index, factor)
    missing = [n for n, s in formula.symbols.items()
               if n not in columns and n not in given and s.default is None]
    if missing:
        raise InputError("columns", ", ".join(header), "a header naming " + ", ".join(missing) +
                         f", or --map 'COLUMN={missing[0]}' to read another column as it",
                         reason=f"missing required column(s) for {formula.id}")
    return columns



def _read_column(table: Table, index: int, name: str, unit: str, factor: float,
                 errors: dict[int, InputError], dialect: Dialect | None) -> np.ndarray:
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



def _parse_column(name: str, unit: str, cells: list[str], factor: float,
                  errors: dict[int, InputError], dialect: Dialect) -> np.ndarray:
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



def _cell_value(name: str, text: str, unit: str, factor: float) -> float:
    """A cell in a CLI value's form (35K, 0.4ms, 95%): in its own unit where it names one, else in the
    header's (``factor`` to the symbol's unit)."""
    value = parse_value(name, text, unit)
    parts = split_number(text)
    return value if parts is not None and unit_named(parts[1]) is not None else value * factor



def _typed_column(name: str, unit: str, cells: list, errors: dict[int, InputError],
                  factor: float) -> np.ndarray:
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
                raise InputError(name, workbook.cell_text(cell), "a number (format the cell as a number)",
                                 reason=f"{kind} where a number belongs")
        except InputError as error:
            errors.setdefault(row, error)
            values[row] = np.nan
    return values



def _parse_cells(name: str, unit: str, cells: list[str], errors: dict[int, InputError],
                 dialect: Dialect, factor: float = 1.0) -> np.ndarray:
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



def _check_settings(formula: Formula, settings: dict[str, float]) -> None:
    """A command option outside its symbol's domain is one usage error, not an error on every row."""
    for name, value in settings.items():
        domain = formula.symbols[name].domain
        if not domain.contains(np.asarray(value)).all():
            unit = formula.symbols[name].unit
            raise InputError(name, with_unit(f"{value:g}", unit), domain.describe(name)
                             + ("" if unit == "1" else f" ({unit})"),
                             reason="a ratio is a fraction: write 95% or 0.95"
                             if unit == "ratio" and value > 1 else "outside its domain")



def _result_titles(formula: Formula, header: list[str]) -> list[str]:
    """Titles of the appended columns; one a column of the file already has gets a ``qmodel_`` prefix."""
    taken = {title.strip().lower() for title in header}
    titles = []
    for title in [f"{o.name}[{o.unit}]" for o in formula.outputs] + ["error"]:
        while title.lower() in taken:
            title = f"qmodel_{title}"
        taken.add(title.lower())
        titles.append(title)
    return titles



class _Computed(NamedTuple):
    """A batch computed: its table and dialect, each output by row, each failed row's error, warnings."""

    formula: Formula
    table: Table
    dialect: Dialect
    outputs: dict[str, np.ndarray]
    errors: dict[int, InputError]
    warned: dict[int, list[str]]

    def report(self, err: TextIO) -> None:
        """Each failed row's error and each warning on ``err``, by the row number the spreadsheet shows."""
        first, name = self.table.first_row, self.formula.id
        for row in sorted(self.errors):
            err.write(f"{name}: {self.errors[row].at_row(row + first)}\n")
        for row, warnings in sorted(self.warned.items()):
            err.writelines(f"{name}: row {row + first}: warning: {warning}\n" for warning in warnings)

    def summary(self) -> BatchSummary:
        return BatchSummary(self.table.size - len(self.table.blank), self.errors, len(self.table.blank))



def _compute(formula: Formula, table: Table, settings: dict[str, float] | None,
             mapping: dict[str, str] | None) -> _Computed:
    """Evaluate ``formula`` on every row of ``table``; a CSV's decimal mark is decided from the input
    columns' cells. Each row's error is kept shortened (:func:`shortened_error`), as every output shows it."""
    header = [title.strip() for title in table.header]
    errors = table.errors
    inputs: dict[str, object] = dict(settings or {})
    columns = _input_columns(formula, header, set(inputs), mapping)
    dialect = cell_dialect = table.dialect
    if dialect is None:
        dialect = Dialect()  # a workbook's rows are written as CSV in the default dialect
    elif dialect.delimiter != ",":
        cells = [cell for index, _ in columns.values()
                 for cell in (table.text.cells(index) if table.text else table.columns[index])]
        decimal, known = sniff_decimal(dialect.delimiter, cells)
        dialect = cell_dialect = replace(dialect, decimal=decimal, known=known)
    for name, (index, factor) in columns.items():
        unit = formula.symbols[name].unit
        inputs[name] = _read_column(table, index, name, unit, factor, errors, cell_dialect)
    outputs: dict[str, np.ndarray] = {}
    warned: dict[int, list[str]] = {}
    if table.size:
        evaluation = evaluate(formula, inputs)
        warned = evaluation.warnings
        for row, error in evaluation.errors.items():
            errors.setdefault(row, error)
        outputs = {name: values + 0.0 for name, values in evaluation.outputs.items()}  # -0 is written 0
    errors = {row: shortened_error(error) for row, error in errors.items() if row not in table.blank}
    return _Computed(formula, table, dialect, outputs, errors, warned)



def _selected(done: _Computed, select) -> Sequence[int]:
    """The rows to write, in order: every row, or those ``select(outputs, errors)`` returns (not blank)."""
    if select is None:
        return range(done.table.size)
    return [row for row in select(done.outputs, done.errors) if row not in done.table.blank]



def run_batch(formula_id: str, text: str, out: TextIO, err: TextIO, *,
              settings: dict[str, float] | None = None, select=None,
              mapping: dict[str, str] | None = None) -> BatchSummary:
    """Evaluate ``formula_id`` for every data row of CSV ``text``; write the rows to ``out``.

    ``settings`` give inputs that no column gives (a command's options);
    ``select(outputs, errors)`` returns the rows to write, in order (default:
    all rows as they came); ``mapping`` names the symbol of a column whose
    header does not. The output is written in the input's dialect (separator,
    decimal mark, byte-order mark, line ends). Raises InputError when the file
    as a whole cannot be used (status 2).
    """
    return _run(formula_id, lambda: split_text(text, rows_as_bytes=True),
                lambda done, rows: out.write(csv_output(done, rows).decode()), err, "file",
                settings=settings, select=select, mapping=mapping)



@holding_a_table()
def _run(formula_id: str, read: Callable[[], Table], write: Callable[[_Computed, Sequence[int]], object],
         err: TextIO, source: str, *, settings: dict[str, float] | None, select,
         mapping: dict[str, str] | None) -> BatchSummary:
    """The one flow of a batch, whatever it reads and writes: the formula and its settings checked, the
    table ``read()``, computed, refused if it has no row (``source`` names it), the selected rows
    written by ``write(computed, rows)``, the failed rows reported on ``err``."""
    formula = get_formula(formula_id)
    _check_settings(formula, settings or {})
    table = read()
    done = _compute(formula, table, settings, mapping)
    refuse_no_rows(table, source, "computation")
    write(done, _selected(done, select))
    done.report(err)
    return done.summary()



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
    """
    header, columns = frames.table_columns(table)
    formula = get_formula(formula_id)
    _check_settings(formula, settings)
    parsed = Table(header, "", [], columns, {}, blank_cells(columns))
    done = _compute(formula, parsed, settings, mapping)
    titles = _result_titles(formula, header)
    results = {title: done.outputs[o.name] if done.outputs else np.full(parsed.size, np.nan)
               for title, o in zip(titles, formula.outputs, strict=False)}
    for row in done.errors:
        for values in results.values():
            values[row] = np.nan
    messages = [done.errors[row].message() if row in done.errors else "" for row in range(parsed.size)]
    warned = [f"row {row + 1}: {warning}" for row, texts in sorted(done.warned.items()) for warning in texts]
    return frames.batch_frame(table, results, titles[-1], messages, warned)



def csv_output(done: _Computed, rows: Sequence[int]) -> bytes:
    """The batch as CSV in UTF-8: the header with the result titles, then each selected row's text with
    its results (12 significant digits, :func:`qmodel.tables.csvbytes.g12`) and its error, if any.

    In the input's dialect: its separator, decimal mark, byte-order mark and line ends. A blank row is
    written back as it came; a failed row with empty result cells and its error.
    """
    dialect, table = done.dialect, done.table
    header = dialect.delimiter.join([table.header_text, *_result_titles(done.formula, table.header)])
    pieces = [(("\ufeff" if dialect.bom else "") + header + dialect.line_end).encode()]
    data, starts, ends = row_bytes(table)
    in_order = rows == range(starts.size)
    picked = np.arange(starts.size) if in_order else np.asarray(rows, dtype=np.int64)
    for first in range(0, picked.size, csvbytes.CHUNK):
        chunk = picked[first:first + csvbytes.CHUNK]
        if in_order:
            begin = starts[chunk[0]]
            text, line_ends = data[begin:ends[chunk[-1]] + 1], ends[chunk] - begin
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
    formula, table, dialect, outputs, errors = done[:5]
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
        cells[:, column + 1:column + 1 + chars.shape[1]] = chars
        kept[:, column + 1:column + 1 + chars.shape[1]] = np.arange(chars.shape[1]) < lengths[:, None]
        column += 1 + chars.shape[1]
    cells[:, column] = delimiter
    cells[:, column + 1:] = tail
    kept[special] = False
    added = cells[kept]
    lengths = np.full(rows.size, len(results) + 1 + tail.size)  # the separators and a CR
    for _, sizes in results:
        lengths += sizes
    lengths[special] = 0
    if special.size:
        blanks, end = dialect.delimiter * (len(formula.outputs) + 1), dialect.line_end[:-1]
        texts = [(blanks + quote_cell(errors[row].message(), dialect.delimiter) if row in errors
                  else blanks if has_text[place] else "") + end
                 for place, row in zip(special.tolist(), rows[special].tolist(), strict=True)]
        sizes = np.array([len(text.encode()) for text in texts])
        at = np.cumsum(lengths)[special]
        added = csvbytes.insert(added, at, np.frombuffer("".join(texts).encode(), np.uint8), sizes)
        lengths[special] = sizes
    return added, lengths



def run_batch_files(formula_id: str, input_path: str, output_path: str, *,
                    settings: dict[str, float] | None = None, select=None,
                    mapping: dict[str, str] | None = None, sheet: str | None = None) -> int:
    """The ``qmodel batch`` command: paths (``-`` for stdin/stdout) in, exit status out.

    The output file is checked before any work is done. A CSV is written in the input's encoding
    and dialect (a workbook's rows as CSV with ``,`` and a decimal point); ``OUT.xlsx`` is a
    workbook (:func:`write_results_workbook`).
    """
    to_workbook = Path(output_path).suffix.lower() in workbook.SUFFIXES
    if output_path != "-":
        check_output_path("-o", output_path)
    if to_workbook and Path(output_path).suffix.lower() != ".xlsx":
        raise InputError("-o", output_path, "OUT.xlsx or OUT.csv", reason="qmodel writes workbooks as .xlsx")
    source = "standard input" if input_path == "-" else input_path
    sheet_name, encoding = "results" if input_path == "-" else Path(input_path).stem, "utf-8"

    def read() -> Table:
        nonlocal sheet_name, encoding
        if workbook.is_workbook(input_path):
            table, sheet_name = read_sheet_table(input_path, sheet, texts=not to_workbook)
            return table
        if sheet is not None:
            raise InputError("--sheet", sheet, "--sheet with a workbook (.xlsx, .xlsm, .ods, .xls)",
                             reason=f"{source} is CSV")
        text, encoding = read_csv_file(input_path, sys.stderr)
        return split_text(text, rows_as_bytes=not to_workbook)

    def write(done: _Computed, rows: Sequence[int]) -> None:
        if not to_workbook:
            return write_csv_file(output_path, csv_output(done, rows), encoding)
        run_facts = [("input", input_path), ("sheet", sheet_name if done.table.dialect is None else "(CSV)"),
                     *((f"--map {column}", symbol) for column, symbol in (mapping or {}).items()),
                     *((f"setting {name}", value) for name, value in (settings or {}).items())]
        return write_results_workbook(output_path, done, rows, sheet_name, run_facts)

    summary = _run(formula_id, read, write, sys.stderr, source, settings=settings, select=select,
                   mapping=mapping)
    failed = len(summary.errors)
    computed = summary.rows - failed
    blank = f", {summary.blank_lines} blank line(s) kept as they were" if summary.blank_lines else ""
    sys.stderr.write(f"{formula_id}: {computed} row{'' if computed == 1 else 's'} computed, "
                     f"{failed} failed{blank}\n")
    return summary.status



def write_results_workbook(path: str, done: _Computed, rows: Sequence[int], sheet_name: str,
                           run_facts: list[tuple[str, object]]) -> None:
    """An .xlsx of a batch (:func:`write_table_workbook`), its ``run`` sheet naming the formula, its
    source and each output's expression."""
    formula, table = done.formula, done.table
    values = [done.outputs[o.name].tolist() if done.outputs else [None] * table.size for o in formula.outputs]
    computed = table.size - len(table.blank) - len(done.errors)
    facts = [("formula", formula.id), ("title", formula.title), ("source", formula.source),
             ("catalogue file", formula.file), *((f"{o.name}[{o.unit}]", o.expr) for o in formula.outputs),
             *run_facts, ("rows computed", computed), ("rows failed", len(done.errors)),
             ("blank rows", len(table.blank))]
    write_table_workbook(path, table, _result_titles(formula, table.header), values, done.errors, rows,
                         sheet_name, facts)
