"""Tables in and out of files: a CSV decoded (UTF-8, UTF-16, Windows-1252) and written back in its
encoding, a workbook's sheet read as a table, rows with their results written as an .xlsx.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from qmodel import __version__
from qmodel.errors import InputError
from qmodel.limits import read_bounded
from qmodel.tables import workbook
from qmodel.tables.dialect import quote_cell
from qmodel.tables.table import Table, blank_cells, cell_column, column_texts, file_error

CSV_LIMIT = 200_000_000  # bytes: a CSV read whole; its cells as Python text take about ten times that



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
        raise file_error(source, "a CSV file, or a workbook given by its file name",
                          "a spreadsheet workbook where CSV text was expected")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), "utf-16"
        except UnicodeDecodeError as error:
            raise file_error(source, "UTF-16 text, as its byte-order mark says, or UTF-8",
                              f"not UTF-16 ({error.reason} at byte {error.start})") from None
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as error:
        utf8_error = f"not UTF-8 ({error.reason} at byte {error.start})"
    try:
        return raw.decode("cp1252"), "cp1252"
    except UnicodeDecodeError as error:
        raise file_error(source, 'UTF-8 text: in Excel, File > Save As > "CSV UTF-8 (Comma delimited)"',
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
    if isinstance(text, bytes) and (encoding != "utf-8" or path == "-"):
        text = text.decode()
    if encoding == "utf-16":
        data = text.encode("utf-16")
    elif encoding == "cp1252":
        data = text.translate(_CP1252_SPELLING).encode("cp1252", errors="replace")
    elif path == "-":
        sys.stdout.write(text)
        return
    else:
        data = text if isinstance(text, bytes) else text.encode(encoding)
    if path == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        return
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise file_error(path, "a file that can be written", error.strerror or "cannot write") from None



def read_sheet_table(path: str, sheet: str | None, texts: bool) -> tuple[Table, str]:
    """(table, sheet name) of a workbook's sheet (:func:`qmodel.tables.workbook.read_sheet`): its cells
    as they are, rows numbered as the spreadsheet shows them; ``texts``: each row's text
    too, for CSV output."""
    found = workbook.read_sheet(path, sheet)
    width, rows = len(found.header), found.rows  # calamine gives every row the sheet's width
    if {len(row) for row in rows} - {width}:
        rows = [row[:width] if len(row) >= width else row + [""] * (width - len(row)) for row in rows]
    columns = [[row[index] for row in rows] for index in range(width)]
    header_text = ",".join(quote_cell(title, ",") for title in found.header)
    row_texts = list(map(",".join, zip(*map(column_texts, columns), strict=True))) if texts and rows else []
    blank = blank_cells(columns)
    table = Table(found.header, header_text, row_texts, columns, {}, blank, found.first_row)
    return table, found.name



def write_table_workbook(path: str, table: Table, titles: list[str], results: list[list],
                         errors: dict[int, InputError], rows: Sequence[int], sheet_name: str,
                         facts: list[tuple[str, object]]) -> None:
    """An .xlsx of rows with results: the input's sheet with the result columns ``titles`` appended
    (numbers as numbers; ``results`` holds each title's value on every row of the table, the last title,
    ``error``, excepted), a sheet ``failed rows`` (row number as the spreadsheet shows it, the row's
    cells, the error) and a sheet ``run`` (qmodel's version, then ``facts``: the input, options, counts).
    """
    inputs = [column if table.dialect is None else cell_column(column) for column in table.columns]
    every_row = list(rows) == list(range(table.size))
    bad = set(errors) | table.blank
    columns = [[title, *(column if every_row else [column[row] for row in rows])]
               for title, column in zip(table.header, inputs, strict=True)]
    columns += [[title, *(None if row in bad else column[row] for row in rows)]
                for title, column in zip(titles, results, strict=False)]
    columns.append([titles[-1], *(errors[row].message() if row in errors else None
                                  for row in rows)])
    failed = [["row", *table.header, "error"]] + [
        [row + table.first_row, *(column[row] for column in inputs), error.message()]
        for row, error in sorted(errors.items())]
    run_sheet = [["qmodel", __version__], *([name, value] for name, value in facts)]
    workbook.write_workbook(path, [(sheet_name, columns), ("failed rows", workbook.columns_of(failed)),
                                   ("run", workbook.columns_of(run_sheet))])
