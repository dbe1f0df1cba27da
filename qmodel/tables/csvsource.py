"""A CSV file read once as UTF-8 bytes and handed out in chunks of whole rows, so that a table of any
length is read, computed and written in bounded memory: the file's bytes (at most
:data:`CSV_LIMIT`) and one chunk's working arrays (:data:`CHUNK_BYTES` of rows at a time).

The encoding is checked, not guessed (:func:`utf8_bytes`): UTF-8 with or without its byte-order mark,
UTF-16 with its mark, else Windows-1252 (what Excel on Windows writes), else refused. Line ends of
every kind (CRLF, LF, CR) read as line feeds; blank lines before the header and after the last row
dropped. A chunk ends at a line end outside quotes, so a quoted cell over several lines stays whole;
a file whose quotes are not all at the edges of cells (``5" disk``) is read in one chunk, as the csv
module reads it.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterator
from typing import NamedTuple, TextIO

import numpy as np

from qmodel.errors import InputError
from qmodel.limits import read_bounded
from qmodel.tables import csvbytes, workbook
from qmodel.tables.dialect import Dialect, sniff_decimal, sniff_delimiter
from qmodel.tables.table import Table, file_error, inert_texts, split_rows

CSV_LIMIT = 200_000_000  # bytes of a CSV file: read whole as bytes, then worked on a chunk at a time
FIRST_DATA_ROW = 2  # a CSV's rows numbered as a spreadsheet opening it shows them: the header is row 1
CHUNK_BYTES = 1 << 23  # bytes of rows worked on at a time: a chunk's arrays take some ten times that
_UTF8_BOM = b"\xef\xbb\xbf"
_VALIDATED = 1 << 24  # bytes of UTF-8 checked at a time (a slice's text is made, checked, dropped)


class CsvSource(NamedTuple):
    """A CSV file as UTF-8 bytes with line feeds only, from its header line to its last row (each line
    ending in a line feed); its encoding and dialect as the file wrote them (the decimal mark is decided
    later, from the input columns), its header cells and where the data rows begin."""

    data: bytes
    encoding: str
    dialect: Dialect
    header: list[str]
    header_text: str
    body: int

    def chunks(self, rows_as_bytes: bool = True, size: int = CHUNK_BYTES) -> Iterator[Table]:
        """The data rows as tables of about ``size`` bytes each, in order, each knowing its ``offset``
        (the index of its first row in the file); a file of no data rows gives one empty table.
        ``rows_as_bytes``: laid out as bytes where :mod:`qmodel.tables.csvbytes` can (for CSV output)."""
        start, end, offset = self.body, len(self.data), 0
        if start >= end:
            yield self._table(start, start, offset, rows_as_bytes)
            return
        while start < end:
            stop = _cut(self.data, start, min(start + size, end), end, self.dialect.delimiter)
            table = self._table(start, stop, offset, rows_as_bytes)
            yield table
            offset += table.size
            start = stop

    def whole(self, rows_as_bytes: bool = False) -> Table:
        """Every data row in one table."""
        return self._table(self.body, len(self.data), 0, rows_as_bytes)

    def _table(self, start: int, stop: int, offset: int, rows_as_bytes: bool) -> Table:
        table = split_rows(
            self.header, self.header_text, self.data[start:stop], self.dialect.delimiter, rows_as_bytes
        )
        return table._replace(dialect=self.dialect, offset=offset, first_row=FIRST_DATA_ROW)


def _cut(data: bytes, start: int, wanted: int, end: int, delimiter: str) -> int:
    """Where a chunk from ``start`` ends: after the last line feed before ``wanted`` that is outside
    quotes (an even count of quotes since ``start``); the file's end where there is none, or where a
    quote stands inside a cell (the csv module then reads the rest as one)."""
    if wanted >= end:
        return end
    cut = data.rfind(b"\n", start, wanted) + 1
    if cut <= start:
        cut = data.find(b"\n", wanted) + 1 or end
    if b'"' not in data[start:cut]:
        return cut
    text = np.frombuffer(data, np.uint8, cut - start, start)
    if not csvbytes.quotes_at_edges(text, np.flatnonzero(text == csvbytes.QUOTE), ord(delimiter)):
        return end
    quotes = data.count(b'"', start, cut)
    while quotes % 2:  # inside a quoted cell: back to an earlier line end, or on to a later one
        previous = data.rfind(b"\n", start, cut - 1) + 1
        if previous <= start:
            following = data.find(b"\n", cut) + 1 or end
            quotes += data.count(b'"', cut, following)
            cut = following
            if cut >= end:
                return end
            continue
        quotes -= data.count(b'"', previous, cut)
        cut = previous
    return cut


def utf8_bytes(raw: bytes, source: str) -> tuple[bytes, str]:
    """(UTF-8 bytes, encoding) of a CSV file: UTF-8 (with or without its BOM), UTF-16 with its BOM, or,
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
        raise file_error(
            source,
            "a CSV file, or a workbook given by its file name",
            "a spreadsheet workbook where CSV text was expected",
        )
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16").encode("utf-8", "surrogatepass"), "utf-16"
        except UnicodeDecodeError as error:
            raise file_error(
                source,
                "UTF-16 text, as its byte-order mark says, or UTF-8",
                f"not UTF-16 ({error.reason} at byte {error.start})",
            ) from None
    problem = _utf8_problem(raw)
    if problem is None:
        return raw, "utf-8"
    try:
        return raw.decode("cp1252").encode("utf-8"), "cp1252"
    except UnicodeDecodeError as error:
        raise file_error(
            source,
            'UTF-8 text: in Excel, File > Save As > "CSV UTF-8 (Comma delimited)"',
            f"{problem}, nor Windows-1252 (byte 0x{raw[error.start]:02X} at {error.start})",
        ) from None


def _utf8_problem(raw: bytes) -> str | None:
    """Why ``raw`` is not UTF-8, or None where it is: checked a slice at a time, never as one text."""
    if raw.isascii():
        return None
    decoder = codecs.getincrementaldecoder("utf-8")()
    for start in range(0, len(raw) + 1, _VALIDATED):
        try:
            decoder.decode(raw[start : start + _VALIDATED], final=start + _VALIDATED >= len(raw))
        except UnicodeDecodeError as error:
            return f"not UTF-8 ({error.reason} at byte {start + error.start})"
    return None


def csv_source(raw: bytes, source: str) -> CsvSource:
    """The :class:`CsvSource` of a CSV file's bytes (``source`` names it in an error)."""
    return _source(*utf8_bytes(raw, source))


def _source(data: bytes, encoding: str) -> CsvSource:
    bom = data.startswith(_UTF8_BOM)
    data = data.removeprefix(_UTF8_BOM)
    line_end = _line_end(data)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    data = data.lstrip(b"\n")
    end = len(data)
    while end > 0:  # blank lines after the last row
        start = data.rfind(b"\n", 0, end) + 1
        if data[start:end].decode("utf-8", "replace").strip():
            break
        end = max(start - 1, 0)
    if end == 0:
        raise file_error("empty", "a CSV file with a header row", "no header")
    if data[end:] != b"\n":  # else the bytes as read, not a copy of them
        data = data[:end] + b"\n"
    body = data.find(b"\n") + 1
    header_text = data[: body - 1].decode("utf-8")
    delimiter = sniff_delimiter(header_text)
    header = next(csv.reader([header_text], delimiter=delimiter))
    dialect = Dialect(delimiter, line_end=line_end, bom=bom)
    return CsvSource(data, encoding, dialect, header, header_text, body)


def _line_end(data: bytes) -> str:
    """The line end the file uses: CRLF (Windows), CR alone (classic Mac) or LF."""
    head = data[:65536]
    at = min((found for found in (head.find(b"\r"), head.find(b"\n")) if found >= 0), default=-1)
    if at < 0 or head[at : at + 1] == b"\n":
        return "\n"
    return "\r\n" if head[at + 1 : at + 2] == b"\n" else "\r"


def read_csv_source(path: str, err: TextIO, what: str = "file") -> CsvSource:
    """The :class:`CsvSource` of the CSV at ``path`` (``-``: standard input), read by
    :func:`read_csv_bytes`."""
    return _source(*read_csv_bytes(path, err, what))


def read_csv_file(path: str, err: TextIO, what: str = "file") -> tuple[str, str]:
    """(text, encoding) of the CSV at ``path`` (``-``: standard input), read by :func:`read_csv_bytes`:
    the whole text, for a table read at once (the scenario's variants)."""
    data, encoding = read_csv_bytes(path, err, what)
    return data.decode("utf-8"), encoding


def read_csv_bytes(path: str, err: TextIO, what: str = "file") -> tuple[bytes, str]:
    """(UTF-8 bytes, encoding) of the CSV at ``path`` (``-``: standard input), read with a bound
    (``what``: the option naming it in an error) and checked by :func:`utf8_bytes`; a note on ``err``
    when it was read as Windows-1252."""
    data, encoding = utf8_bytes(read_bounded(path, CSV_LIMIT, what, "a readable file"), path)
    if encoding == "cp1252":
        name = "standard input" if path == "-" else path
        err.write(
            f"note: {name} is not UTF-8: read as Windows-1252 (Excel's CSV on Windows) and "
            'written back in it; save as "CSV UTF-8" to avoid this note\n'
        )
    return data, encoding


def source_of_text(text: str) -> CsvSource:
    """The :class:`CsvSource` of CSV text already decoded (a test's, the Python API's)."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError as error:  # a lone surrogate
        raise InputError(
            "file",
            repr(text[error.start : error.end]),
            "text that can be written as UTF-8",
            reason="not a character",
        ) from None
    return csv_source(raw, "file")


def split_text(text: str, rows_as_bytes: bool = False) -> Table:
    """The table of CSV ``text`` (every row in one table) with its dialect's separator, line end and
    byte-order mark as the file wrote them. ``rows_as_bytes``: the rows as bytes
    (:class:`qmodel.tables.table.CsvRows`) where :func:`qmodel.tables.csvbytes.layout` can lay them out."""
    return source_of_text(text).whole(rows_as_bytes)


def read_table(text: str) -> tuple[Table, Dialect]:
    """A CSV file's table and dialect, its decimal mark decided from all its cells (for callers
    other than a formula batch, such as the scenario variants); the row texts to write back inert
    (:func:`qmodel.tables.table.inert_texts`)."""
    table = split_text(text)
    assert table.dialect is not None  # a CSV's table carries the dialect it was read in
    delimiter, line_end, bom = table.dialect.delimiter, table.dialect.line_end, table.dialect.bom
    table = table._replace(row_texts=inert_texts(table, delimiter))
    cells = [] if delimiter == "," else [cell for column in table.columns for cell in column]
    return table, Dialect(delimiter, *sniff_decimal(delimiter, cells), line_end, bom)
