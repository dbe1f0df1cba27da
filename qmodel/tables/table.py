"""A table read from CSV text or a workbook's sheet: its header, each row's text to write back, its cells
by column, the rows left blank and the rows that cannot be read.

A CSV's rows are laid out as bytes where :mod:`qmodel.tables.csvbytes` can (no quoted line end, every
row as wide as the header), else read by the csv module, each record keeping the text of the line(s)
it came from so that it is written back as it came. A blank line (or ;;; from a spreadsheet's empty
row) is kept in its place, neither computed nor failed.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import itertools
import math
from typing import NamedTuple

import numpy as np

from qmodel.errors import InputError
from qmodel.safetext import FORMULA_STARTS, is_formula_like
from qmodel.tables import csvbytes, workbook
from qmodel.tables.dialect import Dialect, locale_number, quote_cell
from qmodel.units import shortened


class Table(NamedTuple):
    """A parsed CSV or sheet: header cells, each data row's text to write back, cells by column.

    ``blank`` holds the rows with no cell filled in (an empty line, or ;;; from
    a spreadsheet): written back as they came, neither computed nor failed.
    ``first_row`` is the row number a spreadsheet shows for the first data row (2 in a CSV, whose
    header is row 1; 1 for a DataFrame's first row). ``dialect``: how a CSV wrote it (its
    decimal mark is decided from the input columns, by :func:`_compute`); None for a workbook's or a
    DataFrame's cells, numbers as numbers. ``text``: a CSV's rows as bytes, where
    :mod:`qmodel.tables.csvbytes` can lay them out (then ``row_texts`` and ``columns`` are empty).
    ``offset``: the index of the first row in the whole file, for a table that is one chunk of it
    (:mod:`qmodel.tables.csvsource`); row ``i`` is row ``first_row + offset + i`` of the spreadsheet.
    """

    header: list[str]
    header_text: str
    row_texts: list[str]
    columns: list[list]
    errors: dict[int, InputError]
    blank: frozenset[int] = frozenset()
    first_row: int = 1
    dialect: Dialect | None = None
    text: CsvRows | None = None
    offset: int = 0

    def cells(self, column: int) -> list:
        """The cells of a column: a CSV's as text (a quoted cell as the csv module reads it), a sheet's as
        they are."""
        return self.text.cells(column) if self.text is not None else self.columns[column]

    @property
    def size(self) -> int:
        """The number of data rows."""
        if self.text is not None:
            return self.text.layout.starts.size
        return len(self.columns[0]) if self.columns else len(self.row_texts)


class CsvRows(NamedTuple):
    """A CSV's data rows as UTF-8 bytes (each ending in a line feed) and where their cells lie."""

    raw: bytes
    data: np.ndarray
    layout: csvbytes.Layout

    def numbers(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """(values, unread) of a column's plain decimal cells
        (:func:`qmodel.tables.csvbytes.plain_decimals`)."""
        return csvbytes.plain_decimals(self.data, *self.layout.cell_bounds(column))

    def cells(self, column: int, rows: np.ndarray | None = None) -> list[str]:
        """A column's cells (of ``rows``, default all) as text, a quoted cell as the csv module reads it."""
        starts, ends = self.layout.cell_bounds(column)
        if rows is not None:
            starts, ends = starts[rows], ends[rows]
        raw = self.raw
        texts = [raw[start:end].decode() for start, end in zip(starts.tolist(), ends.tolist(), strict=True)]
        return [next(csv.reader([text]))[0] if '"' in text else text for text in texts]


def split_rows(
    header: list[str], header_text: str, rows: bytes, delimiter: str, rows_as_bytes: bool = False
) -> Table:
    """The table of CSV ``rows`` (UTF-8 bytes of whole lines, each ending in a line feed) under
    ``header``. ``rows_as_bytes``: laid out as bytes (:class:`CsvRows`) where
    :func:`qmodel.tables.csvbytes.layout` can, for a batch written as CSV; else by the csv module."""
    table = _split_bytes(header, header_text, rows, delimiter) if rows_as_bytes else None
    if table is None:
        lines = rows.decode("utf-8").split("\n")[:-1]
        table = (None if b'"' in rows else _split_plain(header, header_text, lines, delimiter)) or _split_csv(
            header, header_text, lines, delimiter
        )
    return table


def _split_plain(header: list[str], header_text: str, rows: list[str], delimiter: str) -> Table | None:
    """The fast path: no quoting and every row as wide as the header.

    Returns None when the file needs the full CSV parser.
    """
    if not all(rows):
        return None
    separators = len(header) - 1
    if set(map(str.count, rows, itertools.repeat(delimiter, len(rows)))) - {separators}:
        return None
    cells = delimiter.join(rows).split(delimiter) if rows else []
    width = separators + 1
    columns = [cells[index::width] for index in range(width)]
    return Table(header, header_text, rows, columns, {}, _blank_rows(rows, delimiter))


def _blank_rows(texts: list[str], delimiter: str) -> frozenset[int]:
    """The rows with no cell filled in: an empty line, or ;;; from a spreadsheet's empty row."""
    blank = delimiter + " \t"
    return frozenset(
        row for row, text in enumerate(texts) if not text or (text[0] in blank and not text.strip(blank))
    )


def _split_csv(header: list[str], header_text: str, lines: list[str], delimiter: str) -> Table:
    """The general path: quoted fields (delimiters or line ends inside), rows of any width.

    Each record keeps the text of the line(s) it was read from, so that it is
    written back as it came.
    """
    rows = list(csv.reader(lines, delimiter=delimiter))
    texts = lines
    if len(rows) != len(lines):  # some quoted field spans lines: find each record's lines
        reader = csv.reader(lines, delimiter=delimiter)
        texts, consumed = [], 0
        for _ in reader:
            texts.append("\n".join(lines[consumed : reader.line_num]))
            consumed = reader.line_num
    width = len(header)
    errors = {}
    blank = _blank_rows(texts, delimiter)
    for row in blank:
        rows[row] = [""] * width
    ragged = set(map(len, rows)) - {width}  # widths other than the header's, if any: find their rows
    for row in [row for row, fields in enumerate(rows) if len(fields) != width] if ragged else []:
        fields = rows[row]
        extra = f"; extra cells: {delimiter.join(fields[width:])}" if len(fields) > width else ""
        errors[row] = InputError(
            "row", f"{len(fields)} fields", f"{width} fields, as in the header", reason=f"wrong width{extra}"
        )
        # written back at the header's width so that the result columns line up
        rows[row] = (fields + [""] * width)[:width]
        texts[row] = delimiter.join(quote_cell(cell, delimiter) for cell in rows[row])
    columns = [[fields[index] for fields in rows] for index in range(width)]
    return Table(header, header_text, texts, columns, errors, blank)


def _split_bytes(header: list[str], header_text: str, raw: bytes, delimiter: str) -> Table | None:
    """The table of the rows as bytes laid out by :func:`qmodel.tables.csvbytes.layout`, or None where it
    cannot (the csv module reads them: :func:`_split_csv`)."""
    if b"\0" in raw:
        return None
    data = np.frombuffer(raw, dtype=np.uint8)
    rows = csvbytes.layout(data, delimiter, len(header))
    if rows is None:
        return None
    blank = frozenset(np.flatnonzero(rows.blank).tolist())
    return Table(header, header_text, [], [], {}, blank, text=CsvRows(raw, data, rows))


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


def refuse_no_rows(table: Table, source: str, row_is: str) -> None:
    """A file with no row under its header (or blank rows only) is refused, naming it: the one rule of
    ``batch`` and ``scenario --variants`` (checked after the header, whose errors come first)."""
    if len(table.blank) == table.size:
        raise InputError(
            source,
            "blank rows only" if table.size else "a header only",
            f"one row per {row_is} under the header",
            reason="no rows",
        )


def shortened_error(error: InputError) -> InputError:
    """The error with a value over 80 characters shortened as ``calc`` shows it
    (:func:`qmodel.units.shortened`; a cell parse_value read is shortened already, to under 60)."""
    value = str(error.value)
    if len(value) <= 80:
        return error
    return InputError(error.parameter, shortened(value), error.allowed, reason=error.reason, row=error.row)


def blank_cells(columns: list[list]) -> frozenset[int]:
    """The rows of a workbook or DataFrame with no cell filled in."""
    if not columns:
        return frozenset()
    blank = {row for row, cell in enumerate(columns[0]) if cell == "" or cell is None}
    for column in columns[1:]:
        blank = {row for row in blank if column[row] == "" or column[row] is None}
    return frozenset(blank)


def column_texts(cells: list) -> list[str]:
    """A workbook column's cells as CSV text (:func:`qmodel.tables.workbook.cell_text`, quoted where needed);
    a column of numbers only, the common case, at list speed."""
    kinds = {type(cell) for cell in cells}
    if kinds <= {float}:
        return [workbook.number_text(cell) for cell in cells]
    if kinds <= {str}:
        return [quote_cell(cell, ",") for cell in cells]
    return [quote_cell(workbook.cell_text(cell), ",") for cell in cells]


def row_bytes(table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def cell_column(cells: list[str], dialect: Dialect) -> list:
    """A CSV column's cells for a workbook: a cell that reads as a finite number in the file's decimal
    mark as that number (``0,4`` in a decimal-comma file is 0.4, ``1.234`` there 1234: what a batch
    computed from it), any other text as it is."""
    if dialect.decimal == ".":
        try:
            values = np.array(cells, dtype=float)
        except ValueError:
            pass
        else:
            if np.isfinite(values).all():
                return values.tolist()
    return [_number_or_text(cell, dialect) for cell in cells]


def _number_or_text(cell: str, dialect: Dialect) -> float | str:
    try:
        number = float(cell if dialect.decimal == "." else locale_number("cell", cell, dialect))
    except (InputError, ValueError):
        try:
            number = float(locale_number("cell", cell, dialect))
        except (InputError, ValueError):
            return cell
    return number if math.isfinite(number) else cell


def file_error(value: object, allowed: str, reason: str) -> InputError:
    return InputError("file", value, allowed, reason=reason)


def inert_header(table: Table, delimiter: str) -> str:
    """The header line to write: as the file wrote it, or, where a cell would be evaluated by a
    spreadsheet (``=HYPERLINK(...)``), its cells written inert (:func:`qmodel.tables.dialect.quote_cell`)."""
    if not any(map(is_formula_like, table.header)):
        return table.header_text
    return delimiter.join(quote_cell(cell, delimiter) for cell in table.header)


def formula_rows(table: Table) -> np.ndarray:
    """The rows (not blank) of a CSV table with a cell a spreadsheet would evaluate as a formula
    (:func:`qmodel.safetext.is_formula_like`): found by each cell's first byte, then, for the few that
    begin as a formula does, by a number's form (``-2`` stays a number). A sheet's rows are written by
    qmodel, inert already (:func:`column_texts`): none."""
    if table.dialect is None:
        return np.zeros(0, dtype=np.int64)
    if table.text is None:
        formulas = {
            row
            for column in table.columns
            for row, cell in enumerate(column)
            if cell[:1] in FORMULA_STARTS and is_formula_like(cell)
        }
        return np.array(sorted(formulas - table.blank), dtype=np.int64)
    data, layout = table.text.data, table.text.layout
    width = layout.separators.shape[1] + 1
    found: list[np.ndarray] = []
    for column in range(width):
        starts, ends = layout.cell_bounds(column)
        first = np.where(ends > starts, data[np.minimum(starts, data.size - 1)], 0)
        quoted = (first == csvbytes.QUOTE) & (ends - starts > 1)
        first[quoted] = data[starts[quoted] + 1]
        rows = np.flatnonzero(np.isin(first, _FORMULA_BYTES))
        if rows.size:
            texts = table.text.cells(column, rows)
            found.append(rows[[is_formula_like(text) for text in texts]])
    return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


_FORMULA_BYTES = np.frombuffer("".join(FORMULA_STARTS).encode(), dtype=np.uint8)


def inert_row_bytes(table: Table, delimiter: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`row_bytes` with every row that holds a formula-like cell (:func:`formula_rows`) written
    again, its cells inert (:func:`qmodel.tables.dialect.quote_cell`); the other rows as they came."""
    data, starts, ends = row_bytes(table)
    rows = formula_rows(table)
    if rows.size == 0:
        return data, starts, ends
    texts = [
        inert_line(data[starts[row] : ends[row]].tobytes().decode(), delimiter).encode()
        for row in rows.tolist()
    ]
    pieces, previous = [], 0
    for row, text in zip(rows.tolist(), texts, strict=True):
        pieces += [data[previous : starts[row]].tobytes(), text]
        previous = int(ends[row])
    pieces.append(data[previous:].tobytes())
    out = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    shift = np.zeros(starts.size, dtype=np.int64)
    shift[rows] = np.array([len(text) for text in texts]) - (ends[rows] - starts[rows])
    moved = np.cumsum(shift)  # bytes gained by this row and those before it
    return out, starts + moved - shift, ends + moved


def inert_line(line: str, delimiter: str) -> str:
    """A CSV row's text with each cell written inert (:func:`qmodel.tables.dialect.quote_cell`)."""
    cells = next(csv.reader([line], delimiter=delimiter)) if line else []
    return delimiter.join(quote_cell(cell, delimiter) for cell in cells)


def inert_texts(table: Table, delimiter: str) -> list[str]:
    """The row texts of a table read by the csv module, those with a formula-like cell
    (:func:`formula_rows`) written inert."""
    texts = list(table.row_texts)
    for row in formula_rows(table).tolist():
        texts[row] = inert_line(texts[row], delimiter)
    return texts
