"""Tables in and out of files: a CSV written back in its encoding, a workbook's sheet read as a table,
rows with their results written as an .xlsx (as their chunks come). A CSV is read by
:mod:`qmodel.tables.csvsource`.
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import BinaryIO

import numpy as np

from qmodel import __version__
from qmodel.errors import HeaderError, InputError
from qmodel.outfile import Target
from qmodel.safetext import shown
from qmodel.tables import csvbytes, workbook
from qmodel.tables.dialect import Dialect, quote_cell
from qmodel.tables.table import Table, blank_cells, cell_column, column_texts

# a note qmodel adds (an error message) in a Windows-1252 file: the characters that code page lacks
CP1252_SPELLING = str.maketrans({"→": "->", "≥": ">=", "≤": "<=", "…": "...", "−": "-"})


def write_csv_file(target: Target, text: str | bytes, encoding: str) -> None:
    """``text`` (with its BOM, if any; UTF-16 gets the codec's; bytes are UTF-8) written whole to
    ``target`` (:mod:`qmodel.outfile`) in ``encoding``."""
    if isinstance(text, bytes) and encoding != "utf-8":
        text = text.decode()
    if isinstance(text, bytes):
        data = text
    elif encoding == "utf-16":
        data = text.encode("utf-16")
    elif encoding == "cp1252":
        data = text.translate(CP1252_SPELLING).encode("cp1252", errors="replace")
    else:
        data = text.encode(encoding)
    target.write(data)


def offering_other_sheets(error: InputError, path: str, sheet: str | None) -> InputError:
    """``error`` where it is a :class:`~qmodel.errors.HeaderError` (a header naming none of what the
    reader needs) from the first sheet of a workbook, read by default where the workbook has other
    worksheets, with them offered (--sheet NAME): a planner's workbook often opens on a sheet of notes;
    any other error as it is."""
    if sheet is not None or not isinstance(error, HeaderError) or not workbook.is_workbook(path):
        return error
    names = workbook.worksheet_names(path)
    if len(names) < 2:
        return error
    return HeaderError(
        error.parameter,
        error.value,
        f"{error.allowed}; or another sheet, --sheet {shlex.quote(names[1])} (the first sheet, "
        f"{shown(names[0])}, was read; the workbook's others: {', '.join(map(shown, names[1:]))})",
        reason=error.reason,
    )


@contextmanager
def other_sheets_named(path: str, sheet: str | None) -> Iterator[None]:
    """Inside it, an InputError raised is :func:`offering_other_sheets`'s."""
    try:
        yield
    except InputError as error:
        raise offering_other_sheets(error, path, sheet) from None


def read_sheet_table(path: str, sheet: str | None, texts: bool) -> tuple[Table, str]:
    """(table, sheet name) of a workbook's sheet (:func:`qmodel.tables.workbook.read_sheet`): its cells
    as they are, rows numbered as the spreadsheet shows them; ``texts``: each row's text
    too, for CSV output."""
    found = workbook.read_sheet(path, sheet)
    if found.hidden:
        sys.stderr.write(
            f"note: {path}: the first sheet, {shown(found.name)!r}, is hidden in the workbook: "
            "read as the first sheet; --sheet NAME reads another\n"
        )
    width, rows = len(found.header), found.rows  # calamine gives every row the sheet's width
    if {len(row) for row in rows} - {width}:
        rows = [row[:width] if len(row) >= width else row + [""] * (width - len(row)) for row in rows]
    columns = [[row[index] for row in rows] for index in range(width)]
    header_text = ",".join(quote_cell(title, ",") for title in found.header)
    row_texts = list(map(",".join, zip(*map(column_texts, columns), strict=True))) if texts and rows else []
    blank = blank_cells(columns)
    table = Table(found.header, header_text, row_texts, columns, {}, blank, found.first_row)
    return table, found.name


def write_table_workbook(
    target: Target,
    table: Table,
    titles: list[str],
    results: list[list],
    errors: dict[int, InputError],
    rows: Sequence[int],
    sheet_name: str,
    facts: list[tuple[str, object]],
) -> None:
    """An .xlsx of rows with results (:class:`ResultsWorkbook`) written whole to ``target``: ``results``
    holds each title's value on every row of the table (the last title, ``error``, excepted)."""
    with target.open() as handle, ResultsWorkbook(handle, sheet_name) as book:
        book.add(
            table,
            titles,
            [np.asarray(column, dtype=float) for column in results],
            errors,
            rows,
            table.dialect,
        )
        book.finish(facts)


class ResultsWorkbook:
    """Rows with results written as an .xlsx as their chunks come (:meth:`add`), then :meth:`finish`:

    - the input's sheet (``sheet_name``) with the result columns appended (numbers as numbers: a CSV
      cell as the number it reads as in the file's decimal mark, ``1.234`` in a German file 1234;
      text as it is), the last, ``error``, the row's error;
    - ``failed rows``: each failed row's number as the spreadsheet shows it, its cells and its error
      (kept in a temporary file until the first sheet is written);
    - ``run``: qmodel's version, then the facts (the input, options, counts).
    """

    def __init__(self, handle: BinaryIO, sheet_name: str) -> None:
        self.book = workbook.XlsxWriter(handle, [sheet_name, "failed rows", "run"])
        self.failed = tempfile.SpooledTemporaryFile(max_size=1 << 24)
        self.failed_rows = workbook.SheetWriter(self.failed, "failed rows")
        self.header = False

    def __enter__(self) -> ResultsWorkbook:
        self._sheet = self.book.sheet()
        self.sheet = self._sheet.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.failed.close()
        if kind is not None:
            self._sheet.__exit__(kind, error, trace)
            self.book.archive.close()

    def add(
        self,
        table: Table,
        titles: list[str],
        results: list[np.ndarray | None],
        errors: dict[int, InputError],
        rows: Sequence[int],
        dialect: Dialect | None,
    ) -> None:
        """The ``rows`` of a table (a chunk) with each result column's values by row (None: no values)
        and each failed row's error; ``dialect``: how a CSV's cells read as numbers (None: a sheet's)."""
        if not self.header:
            self.sheet.rows([[title] for title in [*table.header, *titles]])
            self.failed_rows.rows([[title] for title in ["row", *table.header, "error"]])
            self.header = True
        picked = np.asarray(list(rows) if not isinstance(rows, range) else rows, dtype=np.int64)
        bad = np.zeros(table.size, dtype=bool)
        bad[[*errors, *table.blank]] = True
        for start in range(0, picked.size, _ROWS_AT_A_TIME):  # Python's cells for a block of rows at a time
            part = picked[start : start + _ROWS_AT_A_TIME]
            columns: list = [_input_cells(table, index, part, dialect) for index in range(len(table.header))]
            for values in results:
                shown = np.full(part.size, np.nan) if values is None else values[part]
                shown[bad[part]] = np.nan
                columns.append(shown)
            columns.append([errors[row].message() if row in errors else None for row in part.tolist()])
            self.sheet.rows(columns)
        if errors:
            failed_rows = np.array(sorted(errors), dtype=np.int64)
            first = table.first_row + table.offset
            inputs = [_input_cells(table, index, failed_rows, dialect) for index in range(len(table.header))]
            failed = [
                [row + first, *(_item(column, place) for column in inputs), errors[row].message()]
                for place, row in enumerate(failed_rows.tolist())
            ]
            self.failed_rows.rows(workbook.columns_of(failed))

    def finish(self, facts: list[tuple[str, object]]) -> None:
        """The two last sheets, and the workbook closed."""
        self._sheet.__exit__(None, None, None)
        self.book.copy_sheet(self.failed)  # type: ignore[arg-type]
        with self.book.sheet() as sheet:
            sheet.rows(
                workbook.columns_of([["qmodel", __version__], *([name, value] for name, value in facts)])
            )
        self.book.archive.close()


_ROWS_AT_A_TIME = 1 << 16


def _input_cells(table: Table, index: int, rows: np.ndarray, dialect: Dialect | None) -> list | np.ndarray:
    """A column's cells of ``rows`` for a workbook: a sheet's as they are; a CSV's that are all plain
    decimals (a blank row's empty) as numbers read in bulk, else each as the number it reads as in the
    file's decimal mark or as its text (:func:`qmodel.tables.table.cell_column`)."""
    if dialect is None:
        column = table.columns[index]
        return [column[row] for row in rows.tolist()]
    if table.text is not None and dialect.decimal == ".":
        starts, ends = table.text.layout.cell_bounds(index)
        values, unread = csvbytes.plain_decimals(table.text.data, starts[rows], ends[rows])
        empty = ends[rows] == starts[rows]
        if not (unread & ~empty).any():
            values[empty] = np.nan
            return values
        cells = table.text.cells(index, rows)
    else:
        column = table.cells(index)
        cells = [column[row] for row in rows.tolist()]
    return cell_column(cells, dialect)


def _item(column: list | np.ndarray, place: int) -> object:
    value = column[place]
    return None if isinstance(value, float) and value != value else value
