"""A workbook's size found from its file before any reader allocates it: refused, with the estimate and a
way out, where reading it would pass the limits (:mod:`qmodel.limits`).

A spreadsheet reader holds a sheet as the rectangle from its first to its last cell: two cells, A1 and
XFD1048576, ask for 17 billion (half a terabyte); an .ods cell repeated a million times by one
attribute, likewise; a 3 MB zip of zeros unpacks to gigabytes. So, before python-calamine reads it:

- the file must be a regular file (a FIFO named ``.xlsx`` would block the read forever) of at most
  :data:`WORKBOOK_LIMIT` bytes, whose zip parts unpack (as declared, and as read) to at most
  :data:`UNPACKED_LIMIT`;
- the sheet's part is scanned, not parsed: in an .xlsx every cell and row reference (`` r="XFD7"``,
  numpy over the unpacked bytes, a block at a time) gives the first and last row and column, and a
  cell without a reference counts in its row; in an .ods the repeat attributes of the cells that hold
  a value; in an .xlsb the row and cell records; an .xls (BIFF8) holds at most 65,536 × 256 cells;
- the rectangle (at :data:`BYTES_PER_SPAN_CELL`, :data:`SECONDS_PER_SPAN_CELL`) and the cells present
  (:data:`BYTES_PER_CELL`, :data:`SECONDS_PER_CELL`) are the estimate.

The figures per cell were measured with python-calamine 0.9 (a sheet read and made Python rows):
13,000,000 empty cells between two (500,000 rows × 26 columns) took 560 MB and 1.8 s of CPU; 1,200,000
filled cells (200,000 rows × 6) 110 MB and 1.8 s.
"""

from __future__ import annotations

import html
import os
import re
import stat
import struct
import zipfile
from typing import NamedTuple

import numpy as np

from qmodel.errors import InputError
from qmodel.limits import refuse_too_large, size_text
from qmodel.tables import csvbytes

WORKBOOK_LIMIT = 200_000_000  # bytes of a workbook file, as of a CSV
UNPACKED_LIMIT = 1_000_000_000  # bytes a workbook's zip parts unpack to
BYTES_PER_SPAN_CELL, SECONDS_PER_SPAN_CELL = 48, 1.5e-7  # every cell of the rectangle, empty or not
BYTES_PER_CELL, SECONDS_PER_CELL = 100, 1.5e-6  # a cell that holds a value: its reading and its object
XLS_ROWS, XLS_COLUMNS = 65_536, 256  # an .xls (BIFF8) sheet's most
_BLOCK = 1 << 22  # unpacked bytes scanned at a time
_WAY_OUT = "save the sheet's rows as CSV, or delete the cells far from the table (Ctrl+End shows the last)"


class SheetSize(NamedTuple):
    """What a reader of a sheet will hold: the rectangle of its rows and columns, and the cells in it
    that hold a value (an estimate from above)."""

    rows: int
    columns: int
    cells: int


def refuse_large_workbook(path: str, sheet: str | None) -> None:
    """Refuse, before any reader allocates it, a workbook at ``path`` that is no regular file, larger
    than the limits, a zip bomb, or whose sheet (``sheet``, default the first) would pass the limits
    of memory or time (:func:`sheet_size`); a file that is no workbook at all is left to the reader,
    whose error names it."""
    try:
        found = os.stat(path)
    except OSError as error:
        raise InputError("file", path, "a readable file", reason=error.strerror or "cannot read") from None
    if not stat.S_ISREG(found.st_mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(found.st_mode)
            else "a device"
            if stat.S_ISCHR(found.st_mode) or stat.S_ISBLK(found.st_mode)
            else "not a regular file"
        )
        raise InputError(
            "file",
            path,
            "a workbook file (a regular file), or CSV on standard input (-)",
            reason=f"{kind}: a workbook is read from a file",
        )
    if found.st_size > WORKBOOK_LIMIT:
        raise InputError(
            "file",
            path,
            f"a workbook up to {size_text(WORKBOOK_LIMIT)}: {_WAY_OUT}",
            reason=f"{size_text(found.st_size)}",
        )
    size = sheet_size(path, sheet, found.st_size)
    if size is None:
        return
    span = size.rows * size.columns
    refuse_too_large(
        span * BYTES_PER_SPAN_CELL + size.cells * BYTES_PER_CELL,
        span * SECONDS_PER_SPAN_CELL + size.cells * SECONDS_PER_CELL,
        f"{path}: a sheet of {size.rows:,} rows × {size.columns:,} columns",
        _WAY_OUT,
    )


def sheet_size(path: str, sheet: str | None, file_size: int) -> SheetSize | None:
    """The :class:`SheetSize` of the sheet ``sheet`` (default: the first) of the workbook at ``path``, or
    None where the file is no zip the scan knows (the reader then says what it is)."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    if head.startswith(b"\xd0\xcf\x11\xe0"):  # OLE: an .xls; at most its format's rectangle
        return SheetSize(XLS_ROWS, XLS_COLUMNS, file_size // 8)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    with archive:
        infos = archive.infolist()
        declared = sum(info.file_size for info in infos)
        if declared > UNPACKED_LIMIT:
            raise _bomb(path, declared)
        names = {info.filename for info in infos}
        if "content.xml" in names:
            return _ods_size(_unpacked(archive, "content.xml", path))
        parts = _sheet_parts(archive, names, sheet)
        sizes = [(_xlsb_size if part.endswith(".bin") else _xlsx_size)(archive, part, path) for part in parts]
    if not sizes:
        return None
    return max(
        sizes, key=lambda size: size.rows * size.columns * BYTES_PER_SPAN_CELL + size.cells * BYTES_PER_CELL
    )


def _bomb(path: str, size: float) -> InputError:
    return InputError(
        "file",
        path,
        f"a workbook whose parts unpack to at most {size_text(UNPACKED_LIMIT)}: {_WAY_OUT}",
        reason=f"it unpacks to {'more than ' if size > UNPACKED_LIMIT else ''}"
        f"{size_text(size)} (a zip bomb, or a sheet too large)",
    )


def _unpacked(archive: zipfile.ZipFile, name: str, path: str):
    """The unpacked bytes of a part, a block at a time, counted as read (a declared size may lie)."""
    total = 0
    with archive.open(name) as part:
        while block := part.read(_BLOCK):
            total += len(block)
            if total > UNPACKED_LIMIT:
                raise _bomb(path, total)
            yield block


_SHEET_TAG = re.compile(rb"<(?:\w+:)?sheet\b([^>]*)>")
_ATTRIBUTE = re.compile(rb'([\w:]+)="([^"]*)"')
_RELATIONSHIP = re.compile(rb"<(?:\w+:)?Relationship\b([^>]*)>")


def _sheet_parts(archive: zipfile.ZipFile, names: set[str], sheet: str | None) -> list[str]:
    """The part of the sheet asked for (the first by default), from the workbook's list of sheets and
    its relationships; every worksheet part where they do not say."""
    every = sorted(name for name in names if re.fullmatch(r"xl/worksheets/[^/]+\.(xml|bin)", name))
    try:
        book = archive.read("xl/workbook.xml")
        rels = archive.read("xl/_rels/workbook.xml.rels")
    except KeyError:
        return every
    sheets = [dict(_ATTRIBUTE.findall(match.group(1))) for match in _SHEET_TAG.finditer(book)]
    targets = {
        attributes.get(b"Id"): attributes.get(b"Target", b"")
        for attributes in (dict(_ATTRIBUTE.findall(match.group(1))) for match in _RELATIONSHIP.finditer(rels))
    }
    for attributes in sheets:
        name = html.unescape(attributes.get(b"name", b"").decode("utf-8", "replace"))
        if sheet is None or name == sheet:
            relation = next((value for key, value in attributes.items() if key.endswith(b":id")), None)
            target = targets.get(relation, b"").decode("utf-8", "replace")
            part = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
            return [part] if part in names else every
    return every


def _xlsx_size(archive: zipfile.ZipFile, part: str, path: str) -> SheetSize:
    """The rectangle of an .xlsx sheet from its references (:class:`_References`), a block at a time."""
    found = _References()
    carry = b""
    for block in _unpacked(archive, part, path):
        text = carry + block
        keep = max(text.rfind(b"<", 0, max(len(text) - 64, 0)), 0)  # a tag cut by the block's end: next block
        found.scan(text, keep)
        carry = text[keep:]
    found.scan(carry, len(carry))
    return found.size()


class _References:
    """The rows and columns an .xlsx sheet's references reach (`` r="B7"`` on a cell, `` r="7"`` on a
    row), and the cells and rows without one (each the next after the one before)."""

    def __init__(self) -> None:
        self.first_row = self.first_column = 1 << 40
        self.last_row = self.last_column = 0
        self.cells = self.cells_referenced = self.rows = self.rows_referenced = self.widest_row = 0

    def scan(self, text: bytes, end: int) -> None:
        """Read the tags and references that begin before ``end`` in ``text``: two passes over the bytes
        (its ``<`` and its quotes), then a few steps for every tag and reference: a reference's letters
        (at most three) and digits (at most seven, then the closing quote) are read as one 8-byte word
        (:func:`qmodel.tables.csvbytes.eight_digits`)."""
        data = np.frombuffer(text + bytes(16), dtype=np.uint8)  # a word never runs past the end
        quotes = np.flatnonzero(data[3 : end + 3] == 34) + 3  # `` r="``'s quote, its reference after it
        quotes = quotes[(data[quotes - 1] == 61) & (data[quotes - 2] == 114) & (data[quotes - 3] == 32)]
        starts = quotes + 1
        heads = np.lib.stride_tricks.sliding_window_view(data, 3)[starts]
        upper = (heads - 65) < 26  # A-Z (a smaller byte wraps past 26)
        letters = (
            upper[:, 0].astype(np.intp)
            + (upper[:, 0] & upper[:, 1])
            + (upper[:, 0] & upper[:, 1] & upper[:, 2])
        )
        words = np.lib.stride_tricks.sliding_window_view(data, 8)[starts + letters]
        count = np.argmin(np.c_[(words - 48) < 10, np.zeros(starts.size, dtype=bool)], axis=1)
        good = (count >= 1) & (count <= 7) & (words[np.arange(starts.size), np.minimum(count, 7)] == 34)
        digits = np.ascontiguousarray(words).view("<u8").ravel() & np.uint64(0x0F0F0F0F0F0F0F0F)
        shift = (8 * (8 - np.minimum(count, 8))).astype(np.uint64)
        kept = (np.uint64(1) << (8 * np.minimum(count, 7)).astype(np.uint64)) - np.uint64(1)
        numbers = csvbytes.eight_digits((digits & kept) << shift).astype(np.int64)
        columns = np.zeros(starts.size, dtype=np.int64)
        for place in range(3):
            columns = np.where(place < letters, columns * 26 + heads[:, place].astype(np.int64) - 64, columns)
        numbers, columns, letters = numbers[good], columns[good], letters[good]
        cell = letters > 0
        if numbers.size:
            self.first_row = min(self.first_row, int(numbers.min()))
            self.last_row = max(self.last_row, int(numbers.max()))
        if cell.any():
            self.first_column = min(self.first_column, int(columns[cell].min()))
            self.last_column = max(self.last_column, int(columns[cell].max()))
        self.cells_referenced += int(cell.sum())
        self.rows_referenced += int((~cell).sum())
        tags = np.flatnonzero(data[:end] == 60)  # "<": a cell's tag is <c followed by a space, > or /
        after = data[tags + 2]
        cell_at = tags[(data[tags + 1] == 99) & ((after == 32) | (after == 62) | (after == 47))]
        row_at = tags[
            (data[tags + 1] == 114)
            & (after == 111)
            & (data[tags + 3] == 119)
            & ((data[tags + 4] == 32) | (data[tags + 4] == 62))
        ]
        self.cells += cell_at.size
        self.rows += row_at.size
        if cell_at.size > int(cell.sum()):  # cells placed by their order: the widest row counts them
            bounds = np.searchsorted(cell_at, np.append(row_at, end))
            self.widest_row = max(self.widest_row, int(np.diff(bounds).max(initial=0)))

    def size(self) -> SheetSize:
        if self.last_row == 0 and self.cells == 0:
            return SheetSize(0, 0, 0)
        rows = max(self.last_row - min(self.first_row, self.last_row) + 1, self.rows)
        if self.rows > self.rows_referenced:  # rows placed by their order: from row 1 on
            rows = max(rows, self.last_row + self.rows - self.rows_referenced)
        columns = max(self.last_column - min(self.first_column, self.last_column) + 1, self.widest_row, 1)
        if self.cells > self.cells_referenced:
            columns = max(columns, self.last_column + self.widest_row)
        return SheetSize(rows, columns, self.cells)


_ODS_TAG = re.compile(rb"<(/?)(?:\w+:)?(table-row|table-cell|covered-table-cell)\b([^>]*?)(/?)>")
_REPEATED = re.compile(rb'number-(rows|columns)-repeated="(\d+)"')


def _ods_size(blocks) -> SheetSize:
    """The rectangle of an .ods sheet: rows and cells counted with their repeats, up to the last cell
    that holds a value (a reader skips empty ones; every table of the file, the largest)."""
    text = b"".join(blocks)
    rows = last_row = widest = cells = 0
    row_repeat, column = 1, 0
    for closing, kind, attributes, empty in _ODS_TAG.findall(text):
        if kind == b"table-row":
            if closing:
                rows += row_repeat
                continue
            row_repeat = int(dict(_REPEATED.findall(attributes)).get(b"rows", 1))
            column = 0
            if empty:
                rows += row_repeat
            continue
        if closing:
            continue
        repeat = int(dict(_REPEATED.findall(attributes)).get(b"columns", 1))
        column += repeat
        if b"value-type=" in attributes or not empty:
            cells += repeat * row_repeat
            last_row = rows + row_repeat
            widest = max(widest, column)
    return SheetSize(last_row, widest, cells)


_CELL_RECORDS = frozenset(range(1, 14)) | {62}  # BrtCellBlank ... BrtFmlaError, BrtCellRString


def _xlsb_size(archive: zipfile.ZipFile, part: str, path: str) -> SheetSize:
    """The rectangle of an .xlsb sheet from its records: BrtRowHdr (type 0) gives each row, a cell
    record its column."""
    data = b"".join(_unpacked(archive, part, path))
    rows: list[int] = []
    first_column, last_column, cells, at = 1 << 40, 0, 0, 0
    size = len(data)
    while at < size:
        kind = data[at]
        at += 1
        if kind & 0x80 and at < size:
            kind = (kind & 0x7F) | (data[at] << 7)
            at += 1
        length = shift = 0
        for _ in range(4):
            if at >= size:
                break
            byte = data[at]
            at += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        if length >= 4 and (kind == 0 or kind in _CELL_RECORDS):
            value = struct.unpack_from("<I", data, at)[0] if at + 4 <= size else 0
            if kind == 0:
                rows.append(value)
            else:
                cells += 1
                first_column, last_column = min(first_column, value), max(last_column, value)
        at += length
    if not rows:
        return SheetSize(0, 0, cells)
    return SheetSize(max(rows) - min(rows) + 1, max(last_column - first_column + 1, 1), cells)
