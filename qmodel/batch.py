"""Batch: every row of a spreadsheet (a CSV export or a workbook) in, the same rows out with results appended.

Headers name symbols as people write them: ``service_time``, ``Service Time``,
``Service Time (ms)``, ``service time [us]`` (case, spaces and a unit in
brackets or parentheses are understood); ``--map COLUMN=SYMBOL`` names any
other column. Other columns pass through unchanged. Evaluation is vectorized
over all rows. A bad row keeps its place, gets its message in the ``error``
column and on stderr with its row number (row 1 is the first line after the
header; blank lines count, as in the spreadsheet), and every good row is still
computed. A blank line is written back as it came, neither computed nor failed.

Spreadsheets of every locale: the file's dialect is read from the file and the
output is written in it (see :class:`Dialect`): separator ``,`` ``;`` or TAB,
decimal point or comma (``0,4`` in a ``;`` export), thousands separators where
they cannot be mistaken (``1.234,5``; ``35,000`` in a ``,`` file), a UTF-8 or
UTF-16 byte-order mark, and CRLF, LF or Mac CR-only line ends.

Workbooks (.xlsx, .xlsm, .ods, .xls; :mod:`qmodel.workbook`): the first sheet or ``--sheet``, the
header in its first non-empty row, numbers read as numbers (no locale), rows numbered as the
spreadsheet shows them; ``-o OUT.xlsx`` writes a workbook of the rows with their results, the
failed rows and the run. In Python, :func:`run` takes a pandas DataFrame or a mapping of columns.

Exit status: 0 all rows computed, 1 some rows failed, 2 the file cannot be used
(no header, unknown formula, missing column, a workbook that cannot be read).
"""

from __future__ import annotations

import contextlib
import csv
import gc
import itertools
import math
import re
import sys
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import numpy as np

from qmodel import __version__, csvbytes, frames, workbook
from qmodel.catalogue.evaluate import evaluate
from qmodel.catalogue.loader import Formula, get_formula
from qmodel.errors import InputError
from qmodel.limits import read_bounded
from qmodel.output import check_output_path
from qmodel.units import UNITS, parse_value, shortened, split_number, unit_named, with_unit

# a header: a name of words (letters, digits, _ - . * and spaces), then optionally a unit in [] or ()
_HEADER = re.compile(r"^\s*([A-Za-z_*][\w .*\-]*?)\s*(?:[\[(]\s*([^\])]+?)\s*[\])])?\s*$")
_DELIMITERS = (",", ";", "\t")
CSV_LIMIT = 200_000_000  # bytes: a CSV read whole; its cells as Python text take about ten times that


@dataclass(frozen=True)
class Dialect:
    """How a spreadsheet wrote its CSV, so the output is written the same way.

    ``decimal`` is the decimal mark of its numbers ("," in a German or French
    export); ``known`` says whether the file shows it (a cell such as 0,4 or
    0.4, or a "," separator) rather than qmodel assuming it from the separator.
    """

    delimiter: str = ","
    decimal: str = "."
    known: bool = True
    line_end: str = "\n"
    bom: bool = False


def sniff_line_end(text: str) -> str:
    """The line end the file uses: CRLF (Windows), CR alone (classic Mac) or LF."""
    at = next((i for i, c in enumerate(text[:65536]) if c in "\r\n"), -1)
    if at < 0 or text[at] == "\n":
        return "\n"
    return "\r\n" if text[at + 1:at + 2] == "\n" else "\r"


# evidence of a decimal mark: the mark between digits with other than 3 digits after it (0,4; 12.75)
_DECIMAL_EVIDENCE = {mark: re.compile(rf"\d{re.escape(mark)}(?:\d{{1,2}}|\d{{4,}})(?!\d)") for mark in ",."}


def sniff_decimal(delimiter: str, cells: list[str]) -> tuple[str, bool]:
    """(decimal mark, shown by the file) from the cells of the input columns.

    A "," separator means a decimal point. Otherwise the mark the cells show
    decides (0,4 or 12,75 against 0.4 or 12.75; the more common where both
    appear, and then the other is an error in its cells). Where they show none (whole
    numbers only) a ";" file is written with a decimal comma (";" is what Excel
    exports where the comma is the decimal mark: German, French, Dutch...) and a
    TAB file with a point; a cell that would read differently under the two marks
    (1,234 or 1.234) is refused as ambiguous.
    """
    if delimiter == ",":
        return ".", True
    joined = "\n".join(cells)
    comma = len(_DECIMAL_EVIDENCE[","].findall(joined))
    point = len(_DECIMAL_EVIDENCE["."].findall(joined))
    if comma == point == 0:
        return ("," if delimiter == ";" else "."), False
    if comma == point:  # as many of each: a ";" export is a decimal-comma locale's
        return ("," if delimiter == ";" else "."), True
    return ("," if comma > point else "."), True


@dataclass
class BatchSummary:
    """What a batch run did: rows computed and the errors of the rows that failed."""

    rows: int
    errors: dict[int, InputError]
    blank_lines: int = 0

    @property
    def status(self) -> int:
        return 1 if self.errors else 0


def _file_error(value: object, allowed: str, reason: str) -> InputError:
    return InputError("file", value, allowed, reason=reason)


def split_header(title: str) -> tuple[str, str | None] | None:
    """A column header as (name, unit text or None): ``Service Time (ms)`` is ("Service Time", "ms"),
    ``member.*.think_time[s]`` ("member.*.think_time", "s"), ``distance`` ("distance", None); None for
    a header that is no name (``2024``, ``R/ms``). The unit is not checked here."""
    match = _HEADER.match(title)
    return None if match is None else (match.group(1).strip(), match.group(2))


def sniff_delimiter(header_line: str) -> str:
    """The delimiter of a CSV file from its header: whichever of , ; TAB occurs most."""
    counts = {d: header_line.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


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


def _input_columns(formula: Formula, header: list[str], given: Set[str] = frozenset(),
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
            column_unit = unit_named(unit_name)
            if column_unit is None or column_unit.dimension != symbol_unit.dimension:
                raise InputError(f"column {title!r}", unit_name,
                                 f"a {symbol_unit.dimension} unit such as {symbol_unit.name}",
                                 reason="unit does not fit the symbol")
            factor = column_unit.to_si / symbol_unit.to_si
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


_GROUP_SPACE = re.compile(r"(?<=\d)[ \u00a0\u202f'](?=\d{3}(?!\d))")  # 1 234,5 and 1'234.5
_NUMERIC_PART = re.compile(r"[+-]?[\d.,]+")


def locale_number(name: str, cell: str, dialect: Dialect) -> str:
    """A cell's text with its number written with a decimal point and no thousands separators.

    In a decimal-comma file 1.234,5 is 1234.5 and 0,4 is 0.4; in a decimal-point
    file 1,234.5 is 1234.5. A thousands separator is accepted only between
    groups of three digits, the first not 0 (0.500 is never five hundred); 1,234
    where the file does not show its decimal mark is refused as ambiguous, as is
    a decimal mark the file does not use.
    """
    text = _GROUP_SPACE.sub("", cell.strip())
    match = _NUMERIC_PART.match(text)
    if match is None or ("," not in match.group() and "." not in match.group()):
        return text
    number, rest = match.group(), text[match.end():]
    if not dialect.known and re.fullmatch(r"[+-]?[1-9]\d{0,2}[.,]\d{3}", number):
        return _ambiguous(name, cell, number)
    decimal = dialect.decimal
    thousands = "." if decimal == "," else ","
    whole, mark, fraction = number.partition(decimal)
    if decimal in fraction or thousands in fraction:
        raise InputError(name, cell, f"a number with {decimal!r} as decimal mark, as the file uses",
                         reason="more than one decimal mark, or a separator after it")
    if thousands in whole:
        grouped = re.fullmatch(rf"[+-]?[1-9]\d{{0,2}}(?:{re.escape(thousands)}\d{{3}})+", whole)
        if grouped is None:
            other = "comma" if thousands == "," else "point"
            raise InputError(name, cell, f"a number with {decimal!r} as decimal mark, as the file uses",
                             reason=f"a decimal {other}, but the file's decimal mark is {decimal!r}")
        whole = whole.replace(thousands, "")
    return f"{whole}.{fraction}{rest}" if mark else f"{whole}{rest}"


def _ambiguous(name: str, cell: str, number: str) -> str:
    digits = re.sub(r"[.,]", "", number)
    raise InputError(name, cell, f"a number the file makes clear, e.g. {digits} or "
                     f"{number.replace(',', '.')}", reason=f"ambiguous: the {number[-4]!r} could be a "
                     "thousands separator or a decimal mark, and no other cell shows which")


def _read_column(table: _Table, index: int, name: str, unit: str, factor: float,
                 errors: dict[int, InputError], dialect: Dialect | None) -> np.ndarray:
    """Numbers of the table's input column ``index``; cells that do not parse become errors of their rows.

    A workbook's cells (``dialect`` None) by :func:`_typed_column`; a CSV's by :func:`_parse_column`,
    where the file's rows are bytes the plain decimals read in bulk
    (:func:`qmodel.csvbytes.plain_decimals`, exactly as ``float``) and only the other cells one by one.
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


class _Table(NamedTuple):
    """A parsed CSV or sheet: header cells, each data row's text to write back, cells by column.

    ``blank`` holds the rows with no cell filled in (an empty line, or ;;; from
    a spreadsheet): written back as they came, neither computed nor failed.
    ``first_row`` is the row number the spreadsheet shows for the first data row
    (1 in a CSV, where row 1 is the first line after the header). ``dialect``: how a CSV wrote it (its
    decimal mark is decided from the input columns, by :func:`_compute`); None for a workbook's or a
    DataFrame's cells, numbers as numbers. ``text``: a CSV's rows as bytes, where
    :mod:`qmodel.csvbytes` can lay them out (then ``row_texts`` and ``columns`` are empty).
    """

    header: list[str]
    header_text: str
    row_texts: list[str]
    columns: list[list]
    errors: dict[int, InputError]
    blank: frozenset[int] = frozenset()
    first_row: int = 1
    dialect: Dialect | None = None
    text: _CsvRows | None = None

    @property
    def size(self) -> int:
        """The number of data rows."""
        if self.text is not None:
            return self.text.layout.starts.size
        return len(self.columns[0]) if self.columns else len(self.row_texts)


class _CsvRows(NamedTuple):
    """A CSV's data rows as UTF-8 bytes (each ending in a line feed) and where their cells lie."""

    raw: bytes
    data: np.ndarray
    layout: csvbytes.Layout

    def numbers(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """(values, unread) of a column's plain decimal cells (:func:`qmodel.csvbytes.plain_decimals`)."""
        return csvbytes.plain_decimals(self.data, *self.layout.cell_bounds(column))

    def cells(self, column: int, rows: np.ndarray | None = None) -> list[str]:
        """A column's cells (of ``rows``, default all) as text, a quoted cell as the csv module reads it."""
        starts, ends = self.layout.cell_bounds(column)
        if rows is not None:
            starts, ends = starts[rows], ends[rows]
        raw = self.raw
        texts = [raw[start:end].decode() for start, end in zip(starts.tolist(), ends.tolist(), strict=True)]
        return [next(csv.reader([text]))[0] if '"' in text else text for text in texts]


def quote_cell(cell: str, delimiter: str) -> str:
    """One CSV cell (an error message), quoted only where it must be."""
    if delimiter in cell or '"' in cell or "\n" in cell or "\r" in cell:
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _split_plain(lines: list[str], delimiter: str) -> _Table | None:
    """The fast path: no quoting and every row as wide as the header.

    Returns None when the file needs the full CSV parser.
    """
    if not all(lines[1:]):
        return None
    header_text, rows = lines[0], lines[1:]
    separators = header_text.count(delimiter)
    if set(map(str.count, rows, itertools.repeat(delimiter, len(rows)))) - {separators}:
        return None
    cells = delimiter.join(rows).split(delimiter) if rows else []
    width = separators + 1
    columns = [cells[index::width] for index in range(width)]
    return _Table(header_text.split(delimiter), header_text, rows, columns, {}, _blank_rows(rows, delimiter))


def _blank_rows(texts: list[str], delimiter: str) -> frozenset[int]:
    """The rows with no cell filled in: an empty line, or ;;; from a spreadsheet's empty row."""
    blank = delimiter + " \t"
    return frozenset(row for row, text in enumerate(texts)
                     if not text or (text[0] in blank and not text.strip(blank)))


def _split_csv(lines: list[str], delimiter: str) -> _Table:
    """The general path: quoted fields (delimiters or line ends inside), rows of any width.

    Each record keeps the text of the line(s) it was read from, so that it is
    written back as it came.
    """
    records = list(csv.reader(lines, delimiter=delimiter))
    texts = lines
    if len(records) != len(lines):  # some quoted field spans lines: find each record's lines
        reader = csv.reader(lines, delimiter=delimiter)
        texts, consumed = [], 0
        for _ in reader:
            texts.append("\n".join(lines[consumed:reader.line_num]))
            consumed = reader.line_num
    header, rows = records[0], records[1:]
    header_text, texts = texts[0], texts[1:]
    width = len(header)
    errors = {}
    blank = _blank_rows(texts, delimiter)
    for row in blank:
        rows[row] = [""] * width
    ragged = set(map(len, rows)) - {width}  # widths other than the header's, if any: find their rows
    for row in [row for row, fields in enumerate(rows) if len(fields) != width] if ragged else []:
        fields = rows[row]
        extra = f"; extra cells: {delimiter.join(fields[width:])}" if len(fields) > width else ""
        errors[row] = InputError("row", f"{len(fields)} fields", f"{width} fields, as in the header",
                                 reason=f"wrong width{extra}")
        # written back at the header's width so that the result columns line up
        rows[row] = (fields + [""] * width)[:width]
        texts[row] = delimiter.join(quote_cell(cell, delimiter) for cell in rows[row])
    columns = [[fields[index] for fields in rows] for index in range(width)]
    return _Table(header, header_text, texts, columns, errors, blank)


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
    for title in [frames.key(o.name, o.unit) for o in formula.outputs] + ["error"]:
        while title.lower() in taken:
            title = f"qmodel_{title}"
        taken.add(title.lower())
        titles.append(title)
    return titles


def _split_text(text: str, rows_as_bytes: bool = False) -> _Table:
    """The table of CSV ``text`` with its dialect's separator, line end and byte-order mark as the file
    wrote them. ``rows_as_bytes``: the rows as bytes (:class:`_CsvRows`) where
    :func:`qmodel.csvbytes.layout` can lay them out, for a batch written as CSV."""
    bom = text.startswith("\ufeff")
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise _file_error("empty", "a CSV file with a header row", "no header")
    line_end = sniff_line_end(text)
    body = (text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text).lstrip("\n")
    end = len(body)
    while not body[(start := body.rfind("\n", 0, end) + 1):end].strip():
        end = start - 1  # blank trailing lines
    body = body[:end]
    header_text = body.partition("\n")[0]
    delimiter = sniff_delimiter(header_text)
    table = _split_bytes(body, header_text, delimiter) if rows_as_bytes else None
    if table is None:
        lines = body.split("\n")
        table = (None if '"' in body else _split_plain(lines, delimiter)) or _split_csv(lines, delimiter)
    return table._replace(dialect=Dialect(delimiter, line_end=line_end, bom=bom))


def _split_bytes(body: str, header_text: str, delimiter: str) -> _Table | None:
    """The table of the rows under the header as bytes laid out by :func:`qmodel.csvbytes.layout`, or
    None where it cannot (the csv module reads them: :func:`_split_csv`)."""
    try:
        raw = (body + "\n").encode()
    except UnicodeEncodeError:  # a lone surrogate
        return None
    if b"\0" in raw:
        return None
    header = next(csv.reader([header_text], delimiter=delimiter))
    data = np.frombuffer(raw, dtype=np.uint8)
    found = csvbytes.layout(data, delimiter, len(header))
    if found is None or found.blank[0]:
        return None
    rows = csvbytes.Layout(*(part[1:] for part in found))
    blank = frozenset(np.flatnonzero(rows.blank).tolist())
    return _Table(header, header_text, [], [], {}, blank, text=_CsvRows(raw, data, rows))


def read_table(text: str) -> tuple[_Table, Dialect]:
    """A CSV file's table and dialect, its decimal mark decided from all its cells (for callers
    other than a formula batch, such as the scenario variants)."""
    table = _split_text(text)
    written = table.dialect or Dialect()  # a CSV's table always has its dialect
    delimiter, line_end, bom = written.delimiter, written.line_end, written.bom
    cells = [] if delimiter == "," else [cell for column in table.columns for cell in column]
    return table, Dialect(delimiter, *sniff_decimal(delimiter, cells), line_end, bom)


@contextlib.contextmanager
def holding_a_table():
    """The cyclic garbage collector paused while a table is read, computed and written.

    A table holds a list per row and per column (a million rows: millions of lists) and makes no
    reference cycles; the collector, triggered by every 700 new lists, would walk all of them again
    at each full collection: on 1,000,000 quoted rows that took 4.6 of 9.6 s reading the file.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Computed(NamedTuple):
    """A batch computed: its table and dialect, each output by row, each failed row's error, warnings."""

    formula: Formula
    table: _Table
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


def _compute(formula: Formula, table: _Table, settings: dict[str, float] | None,
             mapping: dict[str, str] | None) -> _Computed:
    """Evaluate ``formula`` on every row of ``table``; a CSV's decimal mark is decided from the input
    columns' cells. Each row's error is kept shortened (:func:`shortened_error`), as every output shows it."""
    header = [title.strip() for title in table.header]
    errors = table.errors
    inputs: dict[str, Any] = dict(settings or {})
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


def refuse_no_rows(table: _Table, source: str, row_is: str) -> None:
    """A file with no row under its header (or blank rows only) is refused, naming it: the one rule of
    ``batch`` and ``scenario --variants`` (checked after the header, whose errors come first)."""
    if len(table.blank) == table.size:
        raise InputError(source, "blank rows only" if table.size else "a header only",
                         f"one row per {row_is} under the header", reason="no rows")


def _selected(done: _Computed, select) -> Sequence[int]:
    """The rows to write, in order: every row, or those ``select(outputs, errors)`` returns (not blank)."""
    if select is None:
        return range(done.table.size)
    return [row for row in select(done.outputs, done.errors) if row not in done.table.blank]


def shortened_error(error: InputError) -> InputError:
    """The error with a value over 80 characters shortened as ``calc`` shows it
    (:func:`qmodel.units.shortened`; a cell parse_value read is shortened already, to under 60)."""
    value = str(error.value)
    if len(value) <= 80:
        return error
    return InputError(error.parameter, shortened(value), error.allowed, reason=error.reason, row=error.row)


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
    return _run(formula_id, lambda: _split_text(text, rows_as_bytes=True),
                lambda done, rows: out.write(csv_output(done, rows).decode()), err, "file",
                settings=settings, select=select, mapping=mapping)


@holding_a_table()
def _run(formula_id: str, read: Callable[[], _Table], write: Callable[[_Computed, Sequence[int]], object],
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
    parsed = _Table(header, "", [], columns, {}, _blank_cells(columns))
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


def _blank_cells(columns: list[list]) -> frozenset[int]:
    """The rows of a workbook or DataFrame with no cell filled in."""
    if not columns:
        return frozenset()
    blank = {row for row, cell in enumerate(columns[0]) if cell == "" or cell is None}
    for column in columns[1:]:
        blank = {row for row in blank if column[row] == "" or column[row] is None}
    return frozenset(blank)


def _column_texts(cells: list) -> list[str]:
    """A workbook column's cells as CSV text (:func:`qmodel.workbook.cell_text`, quoted where needed);
    a column of numbers only, the common case, at list speed."""
    kinds = {type(cell) for cell in cells}
    if kinds <= {float}:
        return [workbook.number_text(cell) for cell in cells]
    if kinds <= {str}:
        return [quote_cell(cell, ",") for cell in cells]
    return [quote_cell(workbook.cell_text(cell), ",") for cell in cells]


def csv_output(done: _Computed, rows: Sequence[int]) -> bytes:
    """The batch as CSV in UTF-8: the header with the result titles, then each selected row's text with
    its results (12 significant digits, :func:`qmodel.csvbytes.g12`) and its error, if any.

    In the input's dialect: its separator, decimal mark, byte-order mark and line ends. A blank row is
    written back as it came; a failed row with empty result cells and its error.
    """
    dialect, table = done.dialect, done.table
    header = dialect.delimiter.join([table.header_text, *_result_titles(done.formula, table.header)])
    pieces = [(("\ufeff" if dialect.bom else "") + header + dialect.line_end).encode()]
    data, starts, ends = _row_bytes(table)
    in_order = rows == range(starts.size)
    picked = np.arange(starts.size) if in_order else np.asarray(rows, dtype=np.int64)
    for first in range(0, picked.size, csvbytes.CHUNK):
        chunk = picked[first:first + csvbytes.CHUNK]
        if in_order:
            begin = starts[chunk[0]]
            text, line_ends = data[begin:ends[chunk[-1]] + 1], ends[chunk] - begin
        else:
            text, line_ends = _taken(data, starts[chunk], ends[chunk])
        added, lengths = _appended(done, chunk, ends[chunk] > starts[chunk])
        out = csvbytes.insert(text, line_ends, added, lengths)
        if dialect.line_end == "\r":
            out[line_ends + np.cumsum(lengths)] = ord("\r")
        pieces.append(out.tobytes())
    return b"".join(pieces)


def _row_bytes(table: _Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(UTF-8 bytes, row starts, line-feed offsets) of the table's rows: a CSV's as laid out, or its
    row texts (a workbook's, a ragged or multi-line CSV's) joined."""
    if table.text is not None:
        return table.text.data, table.text.layout.starts, table.text.layout.ends
    raw = ("\n".join(table.row_texts) + "\n").encode()
    sizes = np.fromiter(map(len, table.row_texts), dtype=np.int64, count=len(table.row_texts))
    if sizes.sum() + sizes.size != len(raw):  # not ASCII: bytes, not characters
        sizes = np.array([len(text.encode()) for text in table.row_texts], dtype=np.int64)
    ends = np.cumsum(sizes + 1) - 1
    return np.frombuffer(raw, dtype=np.uint8), ends - sizes, ends


def _taken(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, line-feed offsets) of the rows ``data[starts:ends + 1]`` end to end, in the order given."""
    sizes = ends - starts + 1
    offsets = np.cumsum(sizes) - sizes
    index = np.repeat(starts - offsets, sizes) + np.arange(sizes.sum())
    return data[index], offsets + sizes - 1


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


# a note qmodel adds (an error message) in a Windows-1252 file: the characters that code page lacks
_CP1252_SPELLING = str.maketrans({"→": "->", "≥": ">=", "≤": "<=", "…": "...", "−": "-"})


def decode(raw: bytes, source: str) -> tuple[str, str]:
    """(text, encoding) of a CSV file: UTF-8 (with or without its BOM), UTF-16 with its BOM, or,
    for a file that is not valid UTF-8, Windows-1252.

    UTF-8 is checked, not guessed: text with any accented letter in another encoding is
    almost never valid UTF-8. Windows-1252 is the one fallback because it is what Excel on
    Windows writes for "CSV (Trennzeichen-getrennt)" / "CSV (Comma delimited)"; numbers and
    headers are ASCII in both, so the encoding only decides how pass-through text is shown,
    and it is written back in the same encoding. A file that is neither (a byte
    Windows-1252 leaves undefined) is refused with how to save it as UTF-8.
    A workbook here (piped to standard input) is refused with how to give it.
    """
    if workbook.looks_like_workbook(raw):
        raise _file_error(source, "a CSV file, or a workbook given by its file name",
                          "a spreadsheet workbook where CSV text was expected")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), "utf-16"
        except UnicodeDecodeError as error:
            raise _file_error(source, "UTF-16 text, as its byte-order mark says, or UTF-8",
                              f"not UTF-16 ({error.reason} at byte {error.start})") from None
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as error:
        utf8_error = f"not UTF-8 ({error.reason} at byte {error.start})"
    try:
        return raw.decode("cp1252"), "cp1252"
    except UnicodeDecodeError as error:
        raise _file_error(source, 'UTF-8 text: in Excel, File > Save As > "CSV UTF-8 (Comma delimited)"',
                          f"{utf8_error}, nor Windows-1252 (byte 0x{raw[error.start]:02X} "
                          f"at {error.start})") from None


def read_csv_file(path: str, err: TextIO, what: str = "file") -> tuple[str, str]:
    """(text, encoding) of the CSV at ``path`` (``-``: standard input), read by :func:`decode` with a
    bound (``what``: the option naming it in an error); a note on ``err`` when it was read as
    Windows-1252."""
    raw = read_bounded(path, CSV_LIMIT, what, "a readable file")
    text, encoding = decode(raw, path)
    if encoding == "cp1252":
        name = "standard input" if path == "-" else path
        err.write(f"note: {name} is not UTF-8: read as Windows-1252 (Excel's CSV on Windows) and "
                  'written back in it; save as "CSV UTF-8" to avoid this note\n')
    return text, encoding


def write_csv_file(path: str, text: str | bytes, encoding: str) -> None:
    """``text`` (with its BOM, if any; UTF-16 gets the codec's; bytes are UTF-8) to ``path`` (``-``:
    standard output) in ``encoding``."""
    if isinstance(text, bytes) and encoding == "utf-8" and path != "-":
        data = text
    else:
        decoded = text.decode() if isinstance(text, bytes) else text
        if encoding == "utf-16":
            data = decoded.encode("utf-16")
        elif encoding == "cp1252":
            data = decoded.translate(_CP1252_SPELLING).encode("cp1252", errors="replace")
        elif path == "-":
            sys.stdout.write(decoded)
            return
        else:
            data = decoded.encode(encoding)
    if path == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        return
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise _file_error(path, "a file that can be written", error.strerror or "cannot write") from None


def read_sheet_table(path: str, sheet: str | None, texts: bool) -> tuple[_Table, str]:
    """(table, sheet name) of a workbook's sheet (:func:`qmodel.workbook.read_sheet`): its cells as they
    are, rows numbered as the spreadsheet shows them; ``texts``: each row's text too, for CSV output."""
    found = workbook.read_sheet(path, sheet)
    width, rows = len(found.header), found.rows  # calamine gives every row the sheet's width
    if {len(row) for row in rows} - {width}:
        rows = [row[:width] if len(row) >= width else row + [""] * (width - len(row)) for row in rows]
    columns = [[row[index] for row in rows] for index in range(width)]
    header_text = ",".join(quote_cell(title, ",") for title in found.header)
    row_texts = list(map(",".join, zip(*map(_column_texts, columns), strict=True))) if texts and rows else []
    blank = _blank_cells(columns)
    table = _Table(found.header, header_text, row_texts, columns, {}, blank, found.first_row)
    return table, found.name


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

    def read() -> _Table:
        nonlocal sheet_name, encoding
        if workbook.is_workbook(input_path):
            table, sheet_name = read_sheet_table(input_path, sheet, texts=not to_workbook)
            return table
        if sheet is not None:
            raise InputError("--sheet", sheet, "--sheet with a workbook (.xlsx, .xlsm, .ods, .xls)",
                             reason=f"{source} is CSV")
        text, encoding = read_csv_file(input_path, sys.stderr)
        return _split_text(text, rows_as_bytes=not to_workbook)

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
             ("catalogue file", formula.file),
             *((frames.key(o.name, o.unit), o.expr) for o in formula.outputs),
             *run_facts, ("rows computed", computed), ("rows failed", len(done.errors)),
             ("blank rows", len(table.blank))]
    write_table_workbook(path, table, _result_titles(formula, table.header), values, done.errors, rows,
                         sheet_name, facts)


def write_table_workbook(path: str, table: _Table, titles: list[str], results: list[list],
                         errors: dict[int, InputError], rows: Sequence[int], sheet_name: str,
                         facts: list[tuple[str, object]]) -> None:
    """An .xlsx of rows with results: the input's sheet with the result columns ``titles`` appended
    (numbers as numbers; ``results`` holds each title's value on every row of the table, the last title,
    ``error``, excepted), a sheet ``failed rows`` (row number as the spreadsheet shows it, the row's
    cells, the error) and a sheet ``run`` (qmodel's version, then ``facts``: the input, options, counts).
    """
    inputs = [column if table.dialect is None else _cell_column(column) for column in table.columns]
    every_row = list(rows) == list(range(table.size))
    bad = set(errors) | table.blank
    columns = [[title, *(column if every_row else [column[row] for row in rows])]
               for title, column in zip(table.header, inputs, strict=True)]
    columns += [[title, *(None if row in bad else column[row] for row in rows)]
                for title, column in zip(titles, results, strict=False)]
    columns.append([titles[-1], *(errors[row].message() if row in errors else None
                                  for row in rows)])
    failed: list[list[object]] = [["row", *table.header, "error"]]
    failed += [[row + table.first_row, *(column[row] for column in inputs), error.message()]
               for row, error in sorted(errors.items())]
    run_sheet: list[list[object]] = [["qmodel", __version__], *([name, value] for name, value in facts)]
    workbook.write_workbook(path, [(sheet_name, columns), ("failed rows", workbook.columns_of(failed)),
                                   ("run", workbook.columns_of(run_sheet))])


def _cell_column(cells: list[str]) -> list:
    """A CSV column's cells for a workbook: a plain finite number as a number, other text as it is."""
    try:
        values = np.array(cells, dtype=float)
    except ValueError:
        return [_number_or_text(cell) for cell in cells]
    return values.tolist() if np.isfinite(values).all() else [_number_or_text(cell) for cell in cells]


def _number_or_text(cell: str) -> float | str:
    try:
        number = float(cell)
    except ValueError:
        return cell
    return number if math.isfinite(number) else cell
